package io.lodestar.api.server;

/**
 * Makes text safe to put inside one log line: every character a terminal or a log reader could
 * take for a line break or a control sequence is written as a visible escape. CR, LF and tab become
 * {@code \r}, {@code \n} and {@code \t}; the other C0 controls (ESC included), DEL, the C1
 * controls (NEL included) and the Unicode line and paragraph separators become {@code \\uXXXX}.
 * Everything else is kept as it is, a backslash included.
 */
public final class ControlCharacters {
    private ControlCharacters() {}

    /** {@code text} with its control characters escaped; the same string if it has none. */
    public static String escape(String text) {
        if (text == null) {
            return null;
        }
        int first = 0;
        while (first < text.length() && !isControl(text.charAt(first))) {
            first++;
        }
        if (first == text.length()) {
            return text; // the common case: no copy
        }
        StringBuilder out = new StringBuilder(text.length() + 16).append(text, 0, first);
        for (int i = first; i < text.length(); i++) {
            char c = text.charAt(i);
            switch (c) {
                case '\r' -> out.append("\\r");
                case '\n' -> out.append("\\n");
                case '\t' -> out.append("\\t");
                default -> {
                    if (isControl(c)) {
                        out.append(String.format("\\u%04x", (int) c));
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        return out.toString();
    }

    static boolean isControl(char c) {
        return c < 0x20 || (c >= 0x7f && c <= 0x9f) || c == '\u2028' || c == '\u2029';
    }
}
