package io.lodestar.config.push;

import io.lodestar.config.changelog.ConfigChangeLog;

/**
 * One push-channel connection, as the transport (the HTTP layer's WebSocket) implements it.
 *
 * <p>{@link #send} is called by the {@link PushHub} from one hub thread at a time per session, in
 * the order the hub queued the messages; it may block while the transport writes (the hub bounds
 * what it queues behind a slow session). {@link #close} may be called from any thread, once.
 */
public interface PushSession {
    /** Delivers one change notice. */
    void send(ConfigChangeLog.Change change);

    /** Delivers the acknowledgement of a subscribe: every change to its keys up to {@code revision} was sent before it. */
    void subscribed(long revision);

    /** Ends the connection; the hub has already forgotten the session. */
    void close(CloseReason reason);

    enum CloseReason {
        /** The session fell too far behind (its queue was full): reconnect with the last revision seen. */
        TOO_SLOW,
        /** The node is shutting down: reconnect, to this node or another. */
        SHUTDOWN
    }
}
