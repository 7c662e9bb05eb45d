package io.lodestar.kv.feed;

/** One applied change to one key, with the store revision of the command that made it. */
public record ChangeEvent(String keyspace, byte[] key, long revision, Kind kind) {
    public enum Kind {
        PUT,
        DELETE
    }
}
