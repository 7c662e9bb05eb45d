package io.lodestar.config.listen;

/**
 * The last time this node told one listener that its config changed: what a delivery report reads.
 * One per listener and key, replaced by the next notice, gone with the listener.
 *
 * @param md5 the MD5 the listener was told of (as served to its address: a gray release's to a
 *     listed client), or null when the notice named none (a gray release started or stopped)
 * @param atMillis when the notice left this node, epoch milliseconds
 * @param via how it left: {@code http-long-poll} (a held poll answered), {@code grpc} (a {@code
 *     ConfigChangeNotifyRequest} pushed) or {@code push-channel} (a {@code changed} message sent)
 * @param acked for a notice the client answers (gRPC): true once it did, false when it did not in
 *     time or the connection closed, null while waiting; null for the others, which are not answered
 * @param error why the notice was not answered, or null
 */
public record Notice(String md5, long atMillis, String via, Boolean acked, String error) {
    public static final String LONG_POLL = "http-long-poll";
    public static final String GRPC = "grpc";
    public static final String PUSH_CHANNEL = "push-channel";

    /** This notice, answered ({@code error} null) or not. */
    public Notice answered(String why) {
        return new Notice(md5, atMillis, via, why == null, why);
    }
}
