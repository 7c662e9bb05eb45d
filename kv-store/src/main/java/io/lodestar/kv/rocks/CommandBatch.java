package io.lodestar.kv.rocks;

import io.lodestar.kv.KvEntry;
import io.lodestar.kv.command.Command;
import io.lodestar.kv.command.Compare;
import io.lodestar.kv.command.Op;
import io.lodestar.kv.feed.ChangeEvent;
import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Executes commands against a {@link RocksEngine}: checks each one's compares and stages its
 * operations in one {@link RocksEngine.Batch}, which {@link #commit} writes atomically with the
 * applied index and the revision reached. A command sees the staged effects of those before it in
 * the same batch. Each command that changed something takes the next revision; the change events
 * are collected for the feed. Not thread-safe: one batch at a time, on the applying thread.
 */
public final class CommandBatch implements AutoCloseable {
    private final RocksEngine.Batch batch;
    private final Overlay overlay;
    private final List<ChangeEvent> events = new ArrayList<>();
    private long revision;

    public CommandBatch(RocksEngine engine) {
        this.batch = engine.newBatch();
        this.overlay = new Overlay(engine);
        this.revision = engine.revision();
    }

    /**
     * Applies {@code command} at the next revision if its compares hold; returns whether they did.
     * If it throws, nothing of this command stays staged and none of its events stays collected.
     */
    public boolean apply(Command command) {
        int eventsBefore = events.size();
        batch.mark();
        try {
            long next = revision + 1;
            boolean succeeded = comparesHold(command);
            boolean changed = false;
            if (succeeded) {
                for (Op op : command.ops()) {
                    changed |= apply(op, next);
                }
            }
            if (changed) {
                revision = next;
            }
            return succeeded;
        } catch (RuntimeException | Error e) {
            batch.rollbackToMark();
            events.subList(eventsBefore, events.size()).clear();
            throw e;
        }
    }

    /** The revision after the commands applied so far. */
    public long revision() {
        return revision;
    }

    /** The changes of the commands applied so far, in order. */
    public List<ChangeEvent> events() {
        return events;
    }

    /** Writes what was staged, with {@code appliedIndex} and the revision reached, atomically. */
    public void commit(long appliedIndex) {
        batch.commit(appliedIndex, revision);
    }

    @Override
    public void close() {
        batch.close();
    }

    private boolean comparesHold(Command command) {
        for (Compare c : command.compares()) {
            KvEntry current = overlay.get(c.keyspace(), c.key());
            if (c.onRevision()) {
                long actual = current == null ? 0 : current.modRevision();
                if (actual != c.expectedModRevision()) {
                    return false;
                }
            } else if (current == null || !Arrays.equals(md5(current.value()), c.expectedValueMd5())) {
                return false;
            }
        }
        return true;
    }

    private boolean apply(Op op, long revision) {
        byte[] key = op.kind() == Op.PUT_AT_REVISION ? withRevision(op.key(), revision) : op.key();
        // a key made from this change's revision cannot exist yet: skip the read
        KvEntry existing = op.kind() == Op.PUT_AT_REVISION ? null : overlay.get(op.keyspace(), key, op.isPut());
        if (op.isPut()) {
            long create = existing == null ? revision : existing.createRevision();
            KvEntry entry = new KvEntry(key, op.value(), create, revision);
            batch.put(op.keyspace(), entry);
            overlay.put(op.keyspace(), key, entry);
            events.add(new ChangeEvent(op.keyspace(), key, revision, ChangeEvent.Kind.PUT));
            return true;
        }
        if (existing == null) {
            return false;
        }
        batch.delete(op.keyspace(), op.key());
        overlay.put(op.keyspace(), op.key(), null);
        events.add(new ChangeEvent(op.keyspace(), op.key(), revision, ChangeEvent.Kind.DELETE));
        return true;
    }

    private static byte[] withRevision(byte[] prefix, long revision) {
        return ByteBuffer.allocate(prefix.length + 8)
                .put(prefix)
                .putLong(revision)
                .array();
    }

    private static byte[] md5(byte[] value) {
        try {
            return MessageDigest.getInstance("MD5").digest(value);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Reads through the uncommitted writes of the current batch, so entries see their predecessors. */
    private static final class Overlay {
        private final RocksEngine engine;
        private final Map<String, Map<ByteBuffer, Optional<KvEntry>>> pending = new HashMap<>();

        Overlay(RocksEngine engine) {
            this.engine = engine;
        }

        KvEntry get(String keyspace, byte[] key) {
            return get(keyspace, key, true);
        }

        /** {@code cache}: whether a read from the engine keeps its block cached (not for a key being deleted). */
        KvEntry get(String keyspace, byte[] key, boolean cache) {
            Map<ByteBuffer, Optional<KvEntry>> ks = pending.get(keyspace);
            Optional<KvEntry> local = ks == null ? null : ks.get(ByteBuffer.wrap(key));
            if (local != null) {
                return local.orElse(null);
            }
            return cache ? engine.get(keyspace, key) : engine.getUncached(keyspace, key);
        }

        void put(String keyspace, byte[] key, KvEntry entryOrNull) {
            pending.computeIfAbsent(keyspace, k -> new HashMap<>())
                    .put(ByteBuffer.wrap(key), Optional.ofNullable(entryOrNull));
        }
    }
}
