package io.lodestar.config;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * The md5 Nacos gives a config's content, and clients send back to compare: the lowercase hex of
 * the MD5 digest of the content's UTF-8 bytes.
 */
public final class ContentMd5 {
    private ContentMd5() {}

    public static String of(String content) {
        return of(content.getBytes(StandardCharsets.UTF_8));
    }

    /** Of content already encoded as UTF-8. */
    public static String of(byte[] utf8) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("MD5").digest(utf8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java platform has MD5", e);
        }
    }
}
