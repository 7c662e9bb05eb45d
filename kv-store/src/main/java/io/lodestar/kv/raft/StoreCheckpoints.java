package io.lodestar.kv.raft;

import io.lodestar.kv.StoreCheckpoint;
import io.lodestar.kv.rocks.CheckpointSummary;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

/**
 * Checkpoints of the whole store taken for an operator (a snapshot file), in {@code
 * <data-dir>/checkpoints/N}: beside the store, so that RocksDB makes its files hard links rather
 * than copies. A start deletes what a crash left there.
 */
final class StoreCheckpoints {
    private final Path root;
    private final KvStateMachine fsm;
    private final Executor background;
    private final AtomicLong taken = new AtomicLong();

    StoreCheckpoints(Path dataDir, KvStateMachine fsm, Executor background) {
        this.root = dataDir.resolve("checkpoints");
        this.fsm = fsm;
        this.background = background;
        KvDirectory.deleteTree(root);
    }

    /** Once {@code barrier} completes, takes the checkpoint on the background thread. */
    CompletableFuture<StoreCheckpoint> take(Supplier<CompletableFuture<Void>> barrier) {
        Path dir = root.resolve(Long.toString(taken.incrementAndGet()));
        return barrier.get().thenApplyAsync(v -> checkpoint(dir), background);
    }

    private StoreCheckpoint checkpoint(Path dir) {
        try {
            Files.createDirectories(root);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create " + root, e);
        }
        fsm.read(engine -> {
            engine.checkpoint(dir);
            return null;
        });
        return CheckpointSummary.of(dir);
    }
}
