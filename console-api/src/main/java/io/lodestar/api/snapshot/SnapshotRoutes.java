package io.lodestar.api.snapshot;

import io.javalin.Javalin;
import io.lodestar.error.Failures;
import io.lodestar.kv.KvStore;
import io.lodestar.kv.StoreCheckpoint;
import io.lodestar.kv.StoreUnavailableException;
import io.lodestar.kv.backup.BackupFormat;
import io.lodestar.kv.backup.BackupHeader;
import java.time.Instant;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code GET /lodestar/v1/snapshot}: the whole store as a snapshot file ({@link BackupFormat}),
 * streamed as it is read from a checkpoint taken for the request. The checkpoint holds every write
 * acknowledged before the request (a ReadIndex round confirmed by the leader first); writes go on
 * while it is taken and sent. One at a time per node: a second request meanwhile is answered 503.
 * What {@code lodestar snapshot save} calls; admin only, since the file holds every namespace and
 * the users' password hashes.
 */
public final class SnapshotRoutes {
    public static final String PATH = "/lodestar/v1/snapshot";
    private static final Logger LOG = LoggerFactory.getLogger(SnapshotRoutes.class);
    private static final long CHECKPOINT_TIMEOUT_SECONDS = 60;

    private SnapshotRoutes() {}

    public static void install(Javalin app, KvStore store) {
        AtomicBoolean taking = new AtomicBoolean();
        app.get(PATH, ctx -> {
            if (!taking.compareAndSet(false, true)) {
                throw new StoreUnavailableException(
                        "another snapshot is being taken on this node: retry when it is done");
            }
            try (StoreCheckpoint checkpoint = checkpoint(store)) {
                BackupHeader header = new BackupHeader(
                        BackupFormat.VERSION,
                        checkpoint.revision(),
                        checkpoint.appliedIndex(),
                        Instant.now(),
                        store.clusterId(),
                        store.cluster().self(),
                        checkpoint.keys());
                ctx.contentType("application/octet-stream");
                ctx.header(
                        "Content-Disposition",
                        "attachment; filename=\"lodestar-r" + checkpoint.revision() + ".snapshot\"");
                ctx.header("X-Lodestar-Revision", Long.toString(checkpoint.revision()));
                long started = System.nanoTime();
                BackupFormat.write(header, checkpoint.dir(), ctx.outputStream());
                LOG.info(
                        "snapshot at revision {} (applied index {}) sent to {} in {} ms",
                        checkpoint.revision(),
                        checkpoint.appliedIndex(),
                        ctx.ip(),
                        TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started));
            } finally {
                taking.set(false);
            }
        });
    }

    private static StoreCheckpoint checkpoint(KvStore store) throws InterruptedException {
        try {
            return store.checkpoint().get(CHECKPOINT_TIMEOUT_SECONDS, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            if (Failures.cause(e) instanceof RuntimeException r) {
                throw r;
            }
            throw new StoreUnavailableException("the checkpoint failed: " + Failures.cause(e), e);
        } catch (TimeoutException e) {
            throw new StoreUnavailableException("no checkpoint within " + CHECKPOINT_TIMEOUT_SECONDS + " s", e);
        }
    }
}
