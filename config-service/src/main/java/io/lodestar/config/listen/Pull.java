package io.lodestar.config.listen;

/**
 * The last read of its config's content this node saw one listener make: the MD5 it was served,
 * when, and over what ({@code grpc}: a {@code ConfigQueryRequest} on the listening connection;
 * {@code http}: a {@code GET} of the config from the push-channel client's address). One per listener
 * and key, gone with the listener.
 */
public record Pull(String md5, long atMillis, String via) {
    public static final String HTTP = "http";
    public static final String GRPC = "grpc";
}
