package io.lodestar.config.transfer;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Nacos's {@code .metadata.yml} (written by {@code exportV2}): a map with one key, {@code metadata},
 * holding a list of maps with {@code dataId}, {@code group}, {@code type}, {@code appName},
 * {@code desc} (and {@code configTags} in newer versions).
 *
 * <p>Written in block style with double-quoted values. Read: the subset of YAML that Nacos
 * (SnakeYAML's {@code dumpAsMap}: one flow mapping per item, wrapped at 80 columns) and
 * hand-written files use: block or flow mappings, plain, single- or double-quoted scalars that may
 * run over several lines, comments. Anything else is {@link IllegalArgumentException}.
 */
final class MetadataYaml {
    static final String ROOT = "metadata";

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

    /** The items of a metadata file, each as its key/value map. */
    static List<Map<String, String>> read(String text) {
        return new Parser(text.replace("\r\n", "\n").replace('\r', '\n')).document();
    }

    /** A cursor over the text. Lines keep their indentation; comments start at a '#' after a space. */
    private static final class Parser {
        private final String s;
        private int pos;

        Parser(String s) {
            this.s = s.startsWith("\uFEFF") ? s.substring(1) : s;
        }

        List<Map<String, String>> document() {
            skipBlankLines();
            if (peek() == '-' && s.startsWith("---", pos)) {
                skipLine();
                skipBlankLines();
            }
            if (!s.startsWith(ROOT + ":", pos) || column() != 0) {
                throw error("expected '" + ROOT + ":'");
            }
            pos += ROOT.length() + 1;
            skipSpaces();
            List<Map<String, String>> items = new ArrayList<>();
            if (peek() == '[') { // flow sequence, e.g. "metadata: []"
                pos++;
                skipFlowSpace();
                while (peek() != ']') {
                    items.add(flowMapping());
                    skipFlowSpace();
                    if (peek() == ',') {
                        pos++;
                        skipFlowSpace();
                    } else if (peek() != ']') {
                        throw error("expected ',' or ']'");
                    }
                }
                pos++;
                expectEndOfLine();
                skipBlankLines();
            } else {
                expectEndOfLine();
                skipBlankLines();
                int seqIndent = -1;
                while (pos < s.length()) {
                    int indent = indentHere();
                    if (seqIndent < 0) {
                        seqIndent = indent;
                    }
                    pos += indent;
                    if (indent != seqIndent || !(peek() == '-' && (peekAt(1) == ' ' || peekAt(1) == '\n'))) {
                        throw error("expected a list item '- '");
                    }
                    pos++;
                    skipSpaces();
                    if (peek() == '{') {
                        items.add(flowMapping());
                        expectEndOfLine();
                    } else {
                        items.add(blockMapping(column()));
                    }
                    skipBlankLines();
                }
            }
            return items;
        }

        /** A block mapping whose first key starts at the cursor, at column {@code indent}. */
        private Map<String, String> blockMapping(int indent) {
            Map<String, String> m = new LinkedHashMap<>();
            while (true) {
                String key = plainKey();
                skipSpaces();
                String value;
                if (peek() == '"' || peek() == '\'') {
                    value = quoted();
                    expectEndOfLine();
                } else {
                    value = plainBlockValue(indent);
                }
                m.put(key, value);
                skipBlankLines();
                if (pos >= s.length() || indentHere() != indent) {
                    return m;
                }
                pos += indent;
            }
        }

        private String plainKey() {
            int start = pos;
            while (pos < s.length() && s.charAt(pos) != ':' && s.charAt(pos) != '\n') {
                pos++;
            }
            if (peek() != ':') {
                throw error("expected 'key: value'");
            }
            String key = s.substring(start, pos).trim();
            pos++;
            if (key.isEmpty() || !(peek() == ' ' || peek() == '\n' || pos >= s.length())) {
                throw error("expected 'key: value'");
            }
            return key;
        }

        /** A plain value to the end of the line, folded with more-indented continuation lines. */
        private String plainBlockValue(int keyIndent) {
            StringBuilder v = new StringBuilder(restOfLine());
            while (pos < s.length()) {
                int save = pos;
                skipBlankLines();
                if (pos < s.length() && indentHere() > keyIndent && !looksLikeKey(pos + indentHere())) {
                    pos += indentHere();
                    String more = restOfLine();
                    v.append(v.length() == 0 ? "" : " ").append(more);
                } else {
                    pos = save;
                    break;
                }
            }
            String value = v.toString();
            return value.isEmpty() || value.equals("~") || value.equals("null") ? null : value;
        }

        private boolean looksLikeKey(int at) {
            int nl = s.indexOf('\n', at);
            String line = s.substring(at, nl < 0 ? s.length() : nl);
            return line.startsWith("- ") || line.matches("[A-Za-z_]+:( .*)?");
        }

        private String restOfLine() {
            int nl = s.indexOf('\n', pos);
            int end = nl < 0 ? s.length() : nl;
            String line = s.substring(pos, end);
            int comment = line.indexOf(" #");
            if (comment >= 0) {
                line = line.substring(0, comment);
            }
            pos = end;
            if (pos < s.length()) {
                pos++;
            }
            return line.trim();
        }

        private Map<String, String> flowMapping() {
            if (peek() != '{') {
                throw error("expected '{'");
            }
            pos++;
            Map<String, String> m = new LinkedHashMap<>();
            skipFlowSpace();
            while (peek() != '}') {
                String key = flowScalar(true);
                skipFlowSpace();
                if (peek() != ':') {
                    throw error("expected ':' in a flow mapping");
                }
                pos++;
                skipFlowSpace();
                String value = peek() == ',' || peek() == '}' ? null : flowScalar(false);
                m.put(key, value);
                skipFlowSpace();
                if (peek() == ',') {
                    pos++;
                    skipFlowSpace();
                } else if (peek() != '}') {
                    throw error("expected ',' or '}'");
                }
            }
            pos++;
            return m;
        }

        private String flowScalar(boolean key) {
            if (peek() == '"' || peek() == '\'') {
                return quoted();
            }
            StringBuilder v = new StringBuilder();
            while (pos < s.length()) {
                char c = s.charAt(pos);
                if (c == ','
                        || c == '}'
                        || c == '{'
                        || c == '['
                        || c == ']'
                        || (c == ':'
                                && (peekAt(1) == ' ' || peekAt(1) == '\n' || peekAt(1) == ',' || peekAt(1) == '}'))) {
                    break;
                }
                if (c == '\n') { // a plain scalar folds: the line break and the indentation become one space
                    pos++;
                    while (peek() == ' ') {
                        pos++;
                    }
                    v.append(' ');
                    continue;
                }
                v.append(c);
                pos++;
            }
            String value = v.toString().trim();
            if (value.isEmpty()) {
                throw error(key ? "expected a key" : "expected a value");
            }
            return value.equals("~") || value.equals("null") ? null : value;
        }

        private String quoted() {
            char q = s.charAt(pos++);
            StringBuilder v = new StringBuilder();
            while (true) {
                if (pos >= s.length()) {
                    throw error("unterminated quoted string");
                }
                char c = s.charAt(pos++);
                if (c == q) {
                    if (q == '\'' && peek() == '\'') {
                        v.append('\'');
                        pos++;
                        continue;
                    }
                    return v.toString();
                }
                if (c == '\n') {
                    foldLineBreak(v);
                } else if (c == '\\' && q == '"') {
                    escape(v);
                } else {
                    v.append(c);
                }
            }
        }

        /** Inside quotes a line break folds to a space (blank lines to newlines); indentation is dropped. */
        private void foldLineBreak(StringBuilder v) {
            int len = v.length();
            while (len > 0 && (v.charAt(len - 1) == ' ' || v.charAt(len - 1) == '\t')) {
                len--;
            }
            v.setLength(len);
            int blank = 0;
            while (true) {
                while (peek() == ' ' || peek() == '\t') {
                    pos++;
                }
                if (peek() == '\n') {
                    blank++;
                    pos++;
                } else {
                    break;
                }
            }
            v.append(blank == 0 ? " " : "\n".repeat(blank));
        }

        private void escape(StringBuilder v) {
            if (pos >= s.length()) {
                throw error("unterminated escape");
            }
            char e = s.charAt(pos++);
            switch (e) {
                case 'n' -> v.append('\n');
                case 'r' -> v.append('\r');
                case 't', '\t' -> v.append('\t');
                case '0' -> v.append('\0');
                case 'a' -> v.append('\u0007');
                case 'b' -> v.append('\b');
                case 'e' -> v.append('\u001b');
                case 'f' -> v.append('\f');
                case 'v' -> v.append('\u000b');
                case ' ' -> v.append(' ');
                case '"', '\\', '/' -> v.append(e);
                case 'N' -> v.append('\u0085');
                case '_' -> v.append('\u00a0');
                case 'L' -> v.append('\u2028');
                case 'P' -> v.append('\u2029');
                case 'x' -> v.appendCodePoint(hex(2));
                case 'u' -> v.appendCodePoint(hex(4));
                case 'U' -> v.appendCodePoint(hex(8));
                case '\n' -> { // an escaped line break: joined without a space
                    while (peek() == ' ' || peek() == '\t') {
                        pos++;
                    }
                }
                default -> throw error("unknown escape '\\" + e + "'");
            }
        }

        private int hex(int digits) {
            if (pos + digits > s.length()) {
                throw error("short escape");
            }
            try {
                int cp = Integer.parseUnsignedInt(s.substring(pos, pos + digits), 16);
                pos += digits;
                if (!Character.isValidCodePoint(cp)) {
                    throw error("invalid code point in escape");
                }
                return cp;
            } catch (NumberFormatException ex) {
                throw error("bad hex escape");
            }
        }

        private void skipFlowSpace() {
            while (pos < s.length()) {
                char c = s.charAt(pos);
                if (c == ' ' || c == '\t' || c == '\n') {
                    pos++;
                } else if (c == '#' && (pos == 0 || s.charAt(pos - 1) == ' ' || s.charAt(pos - 1) == '\n')) {
                    skipLine();
                } else {
                    return;
                }
            }
        }

        private void skipSpaces() {
            while (peek() == ' ' || peek() == '\t') {
                pos++;
            }
        }

        private void expectEndOfLine() {
            skipSpaces();
            if (peek() == '#') {
                skipLine();
                return;
            }
            if (pos < s.length() && s.charAt(pos) != '\n') {
                throw error("unexpected text after the value");
            }
            if (pos < s.length()) {
                pos++;
            }
        }

        /** Skips empty, whitespace-only and comment-only lines; leaves the cursor at a line start. */
        private void skipBlankLines() {
            while (pos < s.length()) {
                int i = pos;
                while (i < s.length() && (s.charAt(i) == ' ' || s.charAt(i) == '\t')) {
                    i++;
                }
                if (i >= s.length()) {
                    pos = i;
                } else if (s.charAt(i) == '\n') {
                    pos = i + 1;
                } else if (s.charAt(i) == '#') {
                    pos = i;
                    skipLine();
                } else {
                    return;
                }
            }
        }

        private void skipLine() {
            int nl = s.indexOf('\n', pos);
            pos = nl < 0 ? s.length() : nl + 1;
        }

        private int indentHere() {
            int i = pos;
            while (i < s.length() && s.charAt(i) == ' ') {
                i++;
            }
            return i - pos;
        }

        private int column() {
            int lineStart = s.lastIndexOf('\n', pos - 1) + 1;
            return pos - lineStart;
        }

        private char peek() {
            return pos < s.length() ? s.charAt(pos) : '\0';
        }

        private char peekAt(int ahead) {
            return pos + ahead < s.length() ? s.charAt(pos + ahead) : '\0';
        }

        private IllegalArgumentException error(String what) {
            int line = 1;
            for (int i = 0; i < Math.min(pos, s.length()); i++) {
                if (s.charAt(i) == '\n') {
                    line++;
                }
            }
            return new IllegalArgumentException(what + " at line " + line);
        }
    }
}
