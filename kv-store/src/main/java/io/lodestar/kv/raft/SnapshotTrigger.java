package io.lodestar.kv.raft;

import com.alipay.sofa.jraft.Node;
import io.lodestar.kv.StoreUnavailableException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Takes a snapshot once the log since the last one holds {@code snapshotEntries} entries or {@code
 * snapshotBytes} bytes (JRaft's own timer covers {@code snapshotIntervalSecs}), or when asked. JRaft
 * then drops the log up to the snapshot before this one, so the log holds at most about two
 * thresholds' worth, and a follower up to one threshold behind catches up from the log.
 */
final class SnapshotTrigger {
    private static final Logger LOG = LoggerFactory.getLogger(RaftKvStore.class);

    private final KvStateMachine fsm;
    private final Supplier<Node> node;
    private final long snapshotEntries;
    private final long snapshotBytes;
    /** A size-triggered snapshot is under way: set by the check that asks for it, cleared by its completion. */
    private final AtomicBoolean snapshotting = new AtomicBoolean();

    SnapshotTrigger(KvStateMachine fsm, Supplier<Node> node, long snapshotEntries, long snapshotBytes) {
        this.fsm = fsm;
        this.node = node;
        this.snapshotEntries = snapshotEntries;
        this.snapshotBytes = snapshotBytes;
    }

    /** Asks for a snapshot if the log grew past a threshold; one size-triggered snapshot at a time. */
    void snapshotIfTheLogGrew() {
        long entries = fsm.appliedIndex() - fsm.lastSnapshotIndex();
        long bytes = fsm.bytesSinceSnapshot();
        if ((entries < snapshotEntries && bytes < snapshotBytes) || !snapshotting.compareAndSet(false, true)) {
            return;
        }
        LOG.debug("snapshot: {} entries, {} bytes of log since the last one", entries, bytes);
        try {
            node.get().snapshot(status -> {
                snapshotting.set(false);
                if (!status.isOk()) {
                    LOG.warn("snapshot after {} entries failed: {}", entries, status);
                }
            });
        } catch (RuntimeException e) {
            snapshotting.set(false);
            throw e;
        }
    }

    /** Takes a snapshot now; completes (on a JRaft thread) when it is saved. */
    CompletableFuture<Void> snapshotNow() {
        CompletableFuture<Void> future = new CompletableFuture<>();
        node.get().snapshot(status -> {
            if (status.isOk()) {
                future.complete(null);
            } else {
                future.completeExceptionally(new StoreUnavailableException("snapshot failed: " + status));
            }
        });
        return future;
    }
}
