package io.lodestar.kv.rocks;

import java.util.Arrays;

/** The key range a prefix stands for: where it ends, and whether a key is in it (unsigned byte order). */
final class Prefixes {
    private Prefixes() {}

    /** The smallest key after every key starting with {@code prefix}; null when there is none (all 0xff). */
    static byte[] successor(byte[] prefix) {
        for (int i = prefix.length - 1; i >= 0; i--) {
            if (prefix[i] != (byte) 0xff) {
                byte[] end = Arrays.copyOf(prefix, i + 1);
                end[i]++;
                return end;
            }
        }
        return null;
    }

    static boolean startsWith(byte[] key, byte[] prefix) {
        return key.length >= prefix.length && Arrays.equals(key, 0, prefix.length, prefix, 0, prefix.length);
    }
}
