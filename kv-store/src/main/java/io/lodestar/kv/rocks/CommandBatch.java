package io.lodestar.kv.rocks;

import io.lodestar.kv.KvEntry;
import io.lodestar.kv.command.Cap;
import io.lodestar.kv.command.Command;
import io.lodestar.kv.command.Compare;
import io.lodestar.kv.command.Op;
import io.lodestar.kv.count.CountRules;
import io.lodestar.kv.feed.ChangeEvent;
import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Executes commands against a {@link RocksEngine}: checks each one's compares and stages its
 * operations in one {@link RocksEngine.Batch}, which {@link #commit} writes atomically with the
 * applied index and the revision reached. A command sees the staged effects of those before it in
 * the same batch. Each command that changed something takes the next revision; the change events
 * are collected for the feed. The key counts of the counted keyspaces ({@link CountRules}) change
 * with the keys: up when a put creates a key, down when a delete removes one. Not thread-safe: one
 * batch at a time, on the applying thread.
 */
public final class CommandBatch implements AutoCloseable {
    private final RocksEngine.Batch batch;
    private final Overlay overlay;
    private final CountRules counting;
    private final List<ChangeEvent> events = new ArrayList<>();
    private long revision;

    /** How a command ended: applied, its compares failed, or a put's {@link Cap} found its scope full. */
    public record Outcome(boolean succeeded, Cap overCap) {
        static final Outcome APPLIED = new Outcome(true, null);
        static final Outcome COMPARE_FAILED = new Outcome(false, null);
    }

    /** Whether one op changed something, or could not apply for its cap. */
    private enum OpResult {
        UNCHANGED,
        CHANGED,
        OVER_CAP
    }

    public CommandBatch(RocksEngine engine) {
        this.batch = engine.newBatch();
        this.overlay = new Overlay(engine);
        this.counting = engine.countRules();
        this.revision = engine.revision();
    }

    /**
     * Applies {@code command} at the next revision if its compares hold and no put's cap refuses it;
     * otherwise stages nothing of it. If it throws, nothing of this command stays staged and none of
     * its events stays collected.
     */
    public Outcome apply(Command command) {
        int eventsBefore = events.size();
        batch.mark();
        overlay.mark();
        try {
            long next = revision + 1;
            if (!comparesHold(command)) {
                return Outcome.COMPARE_FAILED;
            }
            boolean changed = false;
            for (Op op : command.ops()) {
                OpResult result = apply(op, next);
                if (result == OpResult.OVER_CAP) {
                    undo(eventsBefore);
                    return new Outcome(false, op.cap());
                }
                changed |= result == OpResult.CHANGED;
            }
            if (changed) {
                revision = next;
            }
            return Outcome.APPLIED;
        } catch (RuntimeException | Error e) {
            undo(eventsBefore);
            throw e;
        }
    }

    private void undo(int eventsBefore) {
        batch.rollbackToMark();
        overlay.rollbackToMark();
        events.subList(eventsBefore, events.size()).clear();
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
        overlay.forEachCount(batch::putCounter);
        batch.commit(appliedIndex, revision);
    }

    @Override
    public void close() {
        batch.close();
    }

    private boolean comparesHold(Command command) {
        for (Compare c : command.compares()) {
            KvEntry current = overlay.get(c.keyspace(), c.key(), true);
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

    private OpResult apply(Op op, long revision) {
        byte[] key = op.kind() == Op.PUT_AT_REVISION ? withRevision(op.key(), revision) : op.key();
        // a key made from this change's revision cannot exist yet: skip the read
        KvEntry existing = op.kind() == Op.PUT_AT_REVISION ? null : overlay.get(op.keyspace(), key, op.isPut());
        if (op.isPut()) {
            if (existing == null && !count(op, key, 1)) {
                return OpResult.OVER_CAP;
            }
            long create = existing == null ? revision : existing.createRevision();
            KvEntry entry = new KvEntry(key, op.value(), create, revision);
            batch.put(op.keyspace(), entry);
            overlay.put(op.keyspace(), key, entry);
            events.add(new ChangeEvent(op.keyspace(), key, revision, ChangeEvent.Kind.PUT));
            return OpResult.CHANGED;
        }
        if (existing == null) {
            return OpResult.UNCHANGED;
        }
        count(op, key, -1);
        batch.delete(op.keyspace(), op.key());
        overlay.put(op.keyspace(), op.key(), null);
        events.add(new ChangeEvent(op.keyspace(), op.key(), revision, ChangeEvent.Kind.DELETE));
        return OpResult.CHANGED;
    }

    /**
     * Counts a key created ({@code delta} 1) or removed (-1) in its scope, if its keyspace is
     * counted; false, counting nothing, when a created key's cap finds the scope full.
     */
    private boolean count(Op op, byte[] key, int delta) {
        byte[] scope = counting.scope(op.keyspace(), key);
        if (scope == null) {
            return true;
        }
        long now = overlay.count(op.keyspace(), scope);
        if (delta > 0 && op.cap() != null && op.cap().refuses(now)) {
            return false;
        }
        // never below zero: a count can only be off if the store was changed behind the state machine
        overlay.setCount(op.keyspace(), scope, Math.max(0, now + delta));
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
}
