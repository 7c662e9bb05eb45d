package io.lodestar.api.limits;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** A size in bytes as an operator writes it: a number, optionally followed by KiB, MiB or GiB. */
public final class ByteSize {
    private static final Pattern SIZE = Pattern.compile("(\\d{1,15})\\s*(KiB|MiB|GiB)?");

    private ByteSize() {}

    /**
     * The bytes {@code text} names.
     *
     * @throws IllegalArgumentException saying why it is not a size, or that it is too large
     */
    public static long parse(String text) {
        Matcher m = SIZE.matcher(text.trim());
        if (!m.matches()) {
            throw new IllegalArgumentException(
                    "'" + text + "' is not a size (bytes, or a number with KiB, MiB or GiB)");
        }
        int shift = m.group(2) == null
                ? 0
                : switch (m.group(2)) {
                    case "KiB" -> 10;
                    case "MiB" -> 20;
                    default -> 30;
                };
        long n = Long.parseLong(m.group(1));
        if (n > (Long.MAX_VALUE >> shift)) {
            throw new IllegalArgumentException("'" + text + "' is too large");
        }
        return n << shift;
    }
}
