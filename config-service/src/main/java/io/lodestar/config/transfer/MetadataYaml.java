package io.lodestar.config.transfer;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.yaml.snakeyaml.DumperOptions;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.error.Mark;
import org.yaml.snakeyaml.error.MarkedYAMLException;
import org.yaml.snakeyaml.error.YAMLException;
import org.yaml.snakeyaml.events.AliasEvent;
import org.yaml.snakeyaml.events.CollectionStartEvent;
import org.yaml.snakeyaml.events.Event;
import org.yaml.snakeyaml.events.NodeEvent;
import org.yaml.snakeyaml.events.ScalarEvent;
import org.yaml.snakeyaml.parser.Parser;
import org.yaml.snakeyaml.parser.ParserImpl;
import org.yaml.snakeyaml.reader.StreamReader;

/**
 * Nacos's {@code .metadata.yml} (written by {@code exportV2}): a map with one key, {@code metadata},
 * holding a list of maps with {@code dataId}, {@code group}, {@code type}, {@code appName},
 * {@code desc} (and {@code configTags} in newer versions).
 *
 * <p>Written in block style with double-quoted values. Read with SnakeYAML's event parser, so any
 * YAML spelling Nacos (its {@code dumpAsMap}: one flow mapping per item, wrapped at 80 columns) or a
 * person writes is understood, while the file is only ever read as strings: an uploaded archive is
 * untrusted input. Anything else is {@link IllegalArgumentException}.
 */
final class MetadataYaml {
    static final String ROOT = "metadata";

    /** An archive entry is at most this large by default ({@link ArchiveLimits#defaults()}). */
    static final int MAX_CODE_POINTS = 10 << 20;

    private MetadataYaml() {}

    static String write(List<ArchivedConfig> configs) {
        StringBuilder out = new StringBuilder(ROOT).append(":\n");
        for (ArchivedConfig c : configs) {
            String indent = "- ";
            for (Map.Entry<String, String> field : fields(c).entrySet()) {
                if (field.getValue() != null) {
                    out.append(indent)
                            .append(field.getKey())
                            .append(": ")
                            .append(quote(field.getValue()))
                            .append('\n');
                    indent = "  ";
                }
            }
        }
        return out.toString();
    }

    private static Map<String, String> fields(ArchivedConfig c) {
        Map<String, String> m = new LinkedHashMap<>();
        m.put("appName", c.appName());
        m.put("dataId", c.dataId());
        m.put("desc", c.desc());
        m.put("group", c.group());
        m.put("type", c.type());
        return m;
    }

    private static String quote(String s) {
        StringBuilder b = new StringBuilder("\"");
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> b.append("\\\"");
                case '\\' -> b.append("\\\\");
                case '\n' -> b.append("\\n");
                case '\r' -> b.append("\\r");
                case '\t' -> b.append("\\t");
                default -> {
                    if (c < 0x20 || c == 0x7f) {
                        b.append(String.format("\\u%04x", (int) c));
                    } else {
                        b.append(c);
                    }
                }
            }
        }
        return b.append('"').toString();
    }

    /**
     * The items of a metadata file, each as its key/value map; a plain {@code ~}, {@code null} or empty
     * value is a null. Anything but a {@code metadata} list of flat string maps is refused.
     *
     * @throws IllegalArgumentException for text that is not such a file, for anchors, aliases and tags,
     *     and for text over {@link #MAX_CODE_POINTS}
     */
    static List<Map<String, String>> read(String text) {
        return read(text, MAX_CODE_POINTS);
    }

    static List<Map<String, String>> read(String text, int maxCodePoints) {
        LoaderOptions options = new LoaderOptions();
        options.setCodePointLimit(maxCodePoints);
        String body = text.startsWith("\uFEFF") ? text.substring(1) : text;
        try {
            return new Reader(new ParserImpl(new StreamReader(body), options)).document();
        } catch (MarkedYAMLException e) {
            Mark mark = e.getProblemMark() != null ? e.getProblemMark() : e.getContextMark();
            String problem = e.getProblem() != null ? e.getProblem() : e.getContext();
            throw new IllegalArgumentException(problem + (mark == null ? "" : " at line " + (mark.getLine() + 1)));
        } catch (YAMLException e) {
            throw new IllegalArgumentException(e.getMessage());
        }
    }

    /**
     * Walks the parser's events and builds nothing but strings: no node graph, no type resolution, no
     * constructed objects, so tags cannot name classes and aliases cannot multiply. The shape is checked
     * as each event arrives, so nesting deeper than the file's own four levels stops at the first
     * unexpected event; the scanner's code point limit bounds the size.
     */
    private static final class Reader {
        private final Parser parser;

        Reader(Parser parser) {
            this.parser = parser;
        }

        List<Map<String, String>> document() {
            expect(Event.ID.StreamStart, "a YAML stream");
            if (parser.checkEvent(Event.ID.StreamEnd)) {
                throw error(parser.peekEvent(), "expected '" + ROOT + ":'");
            }
            expect(Event.ID.DocumentStart, "a document");
            Event root = next();
            if (!root.is(Event.ID.MappingStart)) {
                throw error(root, "expected '" + ROOT + ":'");
            }
            checkPlain(root);
            Event key = next();
            if (!(key instanceof ScalarEvent) || !ROOT.equals(((ScalarEvent) key).getValue())) {
                throw error(key, "expected '" + ROOT + ":'");
            }
            checkPlain(key);
            List<Map<String, String>> items = items();
            if (!parser.checkEvent(Event.ID.MappingEnd)) {
                throw error(parser.peekEvent(), "expected nothing but '" + ROOT + ":'");
            }
            next();
            expect(Event.ID.DocumentEnd, "the end of the document");
            expect(Event.ID.StreamEnd, "a single document");
            return items;
        }

        private List<Map<String, String>> items() {
            Event value = next();
            checkPlain(value);
            List<Map<String, String>> items = new ArrayList<>();
            if (value instanceof ScalarEvent && stringOf((ScalarEvent) value) == null) {
                return items; // "metadata:" with no items
            }
            if (!value.is(Event.ID.SequenceStart)) {
                throw error(value, "expected a list of items under '" + ROOT + ":'");
            }
            while (!parser.checkEvent(Event.ID.SequenceEnd)) {
                items.add(item());
            }
            next();
            return items;
        }

        private Map<String, String> item() {
            Event start = next();
            checkPlain(start);
            if (!start.is(Event.ID.MappingStart)) {
                throw error(start, "expected an item 'key: value'");
            }
            Map<String, String> item = new LinkedHashMap<>();
            while (!parser.checkEvent(Event.ID.MappingEnd)) {
                String key = scalar("a key");
                if (key == null) {
                    throw error(parser.peekEvent(), "expected a key");
                }
                item.put(key, scalar("a value"));
            }
            next();
            return item;
        }

        private String scalar(String what) {
            Event e = next();
            checkPlain(e);
            if (!(e instanceof ScalarEvent)) {
                throw error(e, "expected " + what + ", not " + describe(e));
            }
            return stringOf((ScalarEvent) e);
        }

        private static String stringOf(ScalarEvent e) {
            String v = e.getValue();
            boolean plain = e.getScalarStyle() == DumperOptions.ScalarStyle.PLAIN;
            return plain && (v.isEmpty() || v.equals("~") || v.equals("null")) ? null : v;
        }

        /** Anchors, aliases and tags have no place in the file; refusing them keeps it plain text. */
        private void checkPlain(Event e) {
            if (!(e instanceof NodeEvent)) {
                return;
            }
            if (e instanceof AliasEvent || ((NodeEvent) e).getAnchor() != null) {
                throw error(e, "anchors and aliases are not allowed");
            }
            String tag = e instanceof ScalarEvent
                    ? ((ScalarEvent) e).getTag()
                    : e instanceof CollectionStartEvent ? ((CollectionStartEvent) e).getTag() : null;
            if (tag != null) {
                throw error(e, "tags are not allowed");
            }
        }

        private void expect(Event.ID id, String what) {
            Event e = next();
            if (!e.is(id)) {
                throw error(e, "expected " + what + ", not " + describe(e));
            }
        }

        private Event next() {
            Event e = parser.getEvent();
            if (e instanceof AliasEvent) {
                throw error(e, "anchors and aliases are not allowed");
            }
            return e;
        }

        private static String describe(Event e) {
            switch (e.getEventId()) {
                case Scalar:
                    return "a value";
                case SequenceStart:
                    return "a list";
                case MappingStart:
                    return "a map";
                case DocumentStart:
                    return "another document";
                default:
                    return "the end";
            }
        }

        private static IllegalArgumentException error(Event at, String what) {
            Mark mark = at.getStartMark();
            return new IllegalArgumentException(what + (mark == null ? "" : " at line " + (mark.getLine() + 1)));
        }
    }
}
