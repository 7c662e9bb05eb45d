package io.lodestar.api.http;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;

/** Query strings and form bodies decoded as Javalin decodes them (UTF-8, '+' is a space), for {@link FastPaths}. */
final class FormCodec {
    private FormCodec() {}

    /**
     * The parameters of the query string and the form body together, or null when a name occurs
     * more than once (the Javalin route then decides which value counts) or a part is malformed.
     */
    static Map<String, String> params(String query, byte[] form) {
        Map<String, String> out = new HashMap<>();
        try {
            if (!add(out, query) || !add(out, form.length == 0 ? null : new String(form, StandardCharsets.UTF_8))) {
                return null;
            }
        } catch (IllegalArgumentException malformed) {
            return null;
        }
        return out;
    }

    private static boolean add(Map<String, String> out, String encoded) {
        if (encoded == null || encoded.isEmpty()) {
            return true;
        }
        int from = 0;
        while (from <= encoded.length()) {
            int amp = encoded.indexOf('&', from);
            int end = amp < 0 ? encoded.length() : amp;
            if (end > from) {
                int eq = encoded.indexOf('=', from);
                String name;
                String value;
                if (eq < 0 || eq > end) {
                    name = decode(encoded.substring(from, end));
                    value = "";
                } else {
                    name = decode(encoded.substring(from, eq));
                    value = decode(encoded.substring(eq + 1, end));
                }
                if (out.putIfAbsent(name, value) != null) {
                    return false;
                }
            }
            from = end + 1;
        }
        return true;
    }

    private static String decode(String s) {
        return s.indexOf('%') < 0 && s.indexOf('+') < 0 ? s : URLDecoder.decode(s, StandardCharsets.UTF_8);
    }
}
