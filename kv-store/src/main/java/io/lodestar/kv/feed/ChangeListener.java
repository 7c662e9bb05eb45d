package io.lodestar.kv.feed;

/**
 * Receives the change feed of one node. Called from a feed thread (a {@link #direct()} listener's
 * changes mostly from the thread that publishes them), never from the state machine's apply
 * thread, and never concurrently for one listener; events arrive in revision order.
 */
public interface ChangeListener {
    void onChange(ChangeEvent event);

    /**
     * Whether this listener hears changes to {@code keyspace}. The feed neither queues the others
     * nor wakes a thread for them: a config publish, three keyspaces written, then wakes only the
     * listeners that care. All keyspaces unless overridden.
     */
    default boolean hears(String keyspace) {
        return true;
    }

    /**
     * Whether {@link #onChange} is cheap and never blocks, so the feed may call it on the thread
     * that publishes the change, the one that then answers the change's writers, whenever nothing
     * is queued for this listener: a thread wake fewer between a commit and what the listener does
     * with it (on a busy machine with few cores a wake can wait a scheduler tick). Such a
     * listener hands large work, e.g. answering thousands of clients, to a thread of its own.
     * Resyncs always run on a feed thread.
     */
    default boolean direct() {
        return false;
    }

    /**
     * Events from {@code fromRevision} on may have been dropped (the listener fell behind, or the
     * store was replaced by a snapshot): re-read whatever the listener derives from the store.
     * Events delivered after this call are complete again.
     */
    void onResync(long fromRevision);
}
