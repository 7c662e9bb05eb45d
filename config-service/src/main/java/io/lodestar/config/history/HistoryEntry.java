package io.lodestar.config.history;

import io.lodestar.config.ConfigKey;

/**
 * One publish or delete of a config, as kept in its history. {@code id} is the store revision of
 * the change (unique, increasing, the same on every node). As in Nacos, an insert keeps the new
 * content, an update the content it replaced, a delete the content it removed.
 */
public record HistoryEntry(
        long id,
        ConfigKey key,
        Operation operation,
        String content,
        String md5,
        String appName,
        String srcIp,
        String srcUser,
        long time) {
    public enum Operation {
        INSERT("I"),
        UPDATE("U"),
        DELETE("D");

        private final String code;

        Operation(String code) {
            this.code = code;
        }

        /** Nacos's one-letter code. */
        public String code() {
            return code;
        }
    }
}
