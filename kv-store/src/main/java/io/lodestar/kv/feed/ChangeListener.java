package io.lodestar.kv.feed;

/**
 * Receives the change feed of one node. Called from a feed thread, never from the state machine's
 * apply thread, and never concurrently for one listener; events arrive in revision order.
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
     * Events from {@code fromRevision} on may have been dropped (the listener fell behind, or the
     * store was replaced by a snapshot): re-read whatever the listener derives from the store.
     * Events delivered after this call are complete again.
     */
    void onResync(long fromRevision);
}
