package io.lodestar.config.listen;

import io.lodestar.config.ConfigKey;

/**
 * One config a client listens to, with the MD5 of the content it holds: lowercase hex, or {@code ""}
 * when it holds nothing (a config that does not exist either is then unchanged).
 */
public record ListeningEntry(ConfigKey key, String md5) {
    public ListeningEntry {
        md5 = md5 == null ? "" : md5;
    }
}
