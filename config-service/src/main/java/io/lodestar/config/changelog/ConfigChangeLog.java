package io.lodestar.config.changelog;

import io.lodestar.config.ConfigKey;
import io.lodestar.config.ConfigKeyspaces;
import io.lodestar.kv.KvEntry;
import io.lodestar.kv.KvStore;
import io.lodestar.kv.command.Op;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The config change log, in keyspace {@value ConfigKeyspaces#CHANGES}: one entry per publish or
 * delete, keyed by {@link #PREFIX} then the change's revision (8 bytes, big-endian), appended in the
 * same command as the change, so the log holds every committed change in revision order on every
 * replica and survives restarts.
 *
 * <p>Value: a kind byte ({@code 1} put, {@code 2} delete); for a put, a byte with the md5's length
 * and the md5 in ASCII; then the config's store key to the end.
 *
 * <p>The log is trimmed ({@link ChangeLogRetention}); the key {@link #FLOOR_KEY} holds the highest
 * trimmed revision (8 bytes, big-endian), written in the same command as the trim, so a reader can
 * tell "no change to my keys after revision R" from "the changes after R are gone": {@link
 * #complete(long)}.
 */
public final class ConfigChangeLog {
    /** The one prefix of every entry (the store requires non-empty keys). */
    public static final byte[] PREFIX = {'c'};
    /** The highest revision trimmed from the log; absent until the first trim. */
    static final byte[] FLOOR_KEY = {'f'};

    private static final byte PUT = 1;
    private static final byte DELETE = 2;

    private final KvStore store;

    public ConfigChangeLog(KvStore store) {
        this.store = store;
    }

    /** One logged change; {@code md5} is null for a delete. */
    public record Change(long revision, ConfigKey key, String md5) {
        public boolean deleted() {
            return md5 == null;
        }
    }

    /** The op that logs a publish of {@code key} with content md5 {@code md5}. */
    public static Op appendPut(ConfigKey key, String md5) {
        byte[] md5Bytes = md5.getBytes(StandardCharsets.US_ASCII);
        byte[] storeKey = key.storeKey();
        byte[] value = ByteBuffer.allocate(2 + md5Bytes.length + storeKey.length)
                .put(PUT)
                .put((byte) md5Bytes.length)
                .put(md5Bytes)
                .put(storeKey)
                .array();
        return Op.putAtRevision(ConfigKeyspaces.CHANGES, PREFIX, value);
    }

    /** The op that logs a delete of {@code key}. */
    public static Op appendDelete(ConfigKey key) {
        byte[] storeKey = key.storeKey();
        byte[] value = ByteBuffer.allocate(1 + storeKey.length)
                .put(DELETE)
                .put(storeKey)
                .array();
        return Op.putAtRevision(ConfigKeyspaces.CHANGES, PREFIX, value);
    }

    /** The revision a change-log key carries, or -1 if it is not one. */
    public static long revisionOf(byte[] logKey) {
        if (logKey.length != PREFIX.length + 8 || !Arrays.equals(logKey, 0, PREFIX.length, PREFIX, 0, PREFIX.length)) {
            return -1;
        }
        return ByteBuffer.wrap(logKey, PREFIX.length, 8).getLong();
    }

    /** The entry key of the change at {@code revision}. */
    public static byte[] keyAt(long revision) {
        return ByteBuffer.allocate(PREFIX.length + 8)
                .put(PREFIX)
                .putLong(revision)
                .array();
    }

    /** This node's logged changes with a revision above {@code afterRevision}, oldest first, at most {@code limit}. */
    public List<Change> after(long afterRevision, int limit) {
        long from = afterRevision == Long.MAX_VALUE ? Long.MAX_VALUE : Math.max(0, afterRevision + 1);
        List<Change> out = new ArrayList<>();
        for (KvEntry e : store.scanFrom(ConfigKeyspaces.CHANGES, PREFIX, keyAt(from), limit)) {
            long revision = revisionOf(e.key());
            if (revision > afterRevision) {
                out.add(decode(revision, e.value()));
            }
        }
        return out;
    }

    /** The highest revision trimmed from this node's log (0 if none was). */
    public long floor() {
        KvEntry e = store.get(ConfigKeyspaces.CHANGES, FLOOR_KEY);
        return e == null ? 0 : ByteBuffer.wrap(e.value()).getLong();
    }

    /** Whether this node's log still holds every change after {@code afterRevision}. */
    public boolean complete(long afterRevision) {
        return afterRevision >= floor();
    }

    /** The logged change at {@code revision}, or null. */
    public Change at(long revision) {
        KvEntry e = store.get(ConfigKeyspaces.CHANGES, keyAt(revision));
        return e == null ? null : decode(revision, e.value());
    }

    static Change decode(long revision, byte[] value) {
        ByteBuffer in = ByteBuffer.wrap(value);
        byte kind = in.get();
        String md5 = null;
        if (kind == PUT) {
            byte[] md5Bytes = new byte[in.get() & 0xff];
            in.get(md5Bytes);
            md5 = new String(md5Bytes, StandardCharsets.US_ASCII);
        } else if (kind != DELETE) {
            throw new IllegalStateException("unknown change kind " + kind + " at revision " + revision);
        }
        byte[] storeKey = new byte[in.remaining()];
        in.get(storeKey);
        return new Change(revision, ConfigKey.fromStoreKey(storeKey), md5);
    }
}
