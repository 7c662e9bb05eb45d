package io.lodestar.api.cli.client;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.lodestar.api.json.Json;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;

/**
 * What a command prints on stdout, in the format {@code --output} asks for. Rows are JSON objects
 * holding exactly the columns shown, so the table and the JSON carry the same facts. Messages for
 * a person (progress, warnings) go to stderr, never here.
 */
public final class Output {
    public enum Format {
        TABLE,
        JSON
    }

    private final Format format;
    private final PrintStream out;

    public Output(Format format, PrintStream out) {
        this.format = format;
        this.out = out;
    }

    public boolean json() {
        return format == Format.JSON;
    }

    public static ObjectNode row() {
        return Json.MAPPER.createObjectNode();
    }

    public static ArrayNode rows() {
        return Json.MAPPER.createArrayNode();
    }

    /** {@code rows} as a table of {@code columns} (field names, also the header), or as a JSON array. */
    public void table(ArrayNode rows, String... columns) {
        if (json()) {
            pretty(rows);
            return;
        }
        List<String[]> lines = new ArrayList<>();
        lines.add(columns);
        for (JsonNode r : rows) {
            String[] cells = new String[columns.length];
            for (int i = 0; i < columns.length; i++) {
                cells[i] = cell(r.path(columns[i]));
            }
            lines.add(cells);
        }
        int[] widths = new int[columns.length];
        for (String[] line : lines) {
            for (int i = 0; i < line.length; i++) {
                widths[i] = Math.max(widths[i], line[i].length());
            }
        }
        for (String[] line : lines) {
            StringBuilder b = new StringBuilder();
            for (int i = 0; i < line.length; i++) {
                b.append(line[i]);
                if (i < line.length - 1) {
                    b.append(" ".repeat(widths[i] - line[i].length() + 2));
                }
            }
            out.println(b);
        }
    }

    /** One object: {@code field: value} lines, or the object as JSON. */
    public void object(JsonNode object) {
        if (json()) {
            pretty(object);
            return;
        }
        object.fields().forEachRemaining(e -> out.println(e.getKey() + ": " + cell(e.getValue())));
    }

    /** The outcome of a change: {@code message} as a line, or {@code {"ok":true,"message":...}}. */
    public void done(String message) {
        if (json()) {
            ObjectNode o = row().put("ok", true).put("message", message);
            out.println(o);
            return;
        }
        out.println(message);
    }

    /** One event of a stream (a watch): a line of text, or one compact JSON object per line. */
    public void event(String text, JsonNode json) {
        out.println(json() ? json.toString() : text);
        out.flush();
    }

    private void pretty(JsonNode node) {
        try {
            out.println(Json.MAPPER.writerWithDefaultPrettyPrinter().writeValueAsString(node));
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    private static String cell(JsonNode value) {
        if (value == null || value.isMissingNode() || value.isNull()) {
            return "";
        }
        return value.isValueNode() ? value.asText() : value.toString();
    }
}
