package io.lodestar.config.history;

import io.lodestar.config.ConfigKeyspaces;
import io.lodestar.config.LeaderOnlyJob;
import io.lodestar.kv.KvEntry;
import io.lodestar.kv.KvStore;
import io.lodestar.kv.command.Command;
import io.lodestar.kv.command.Op;
import java.nio.ByteBuffer;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Trims config history: every {@link Settings#interval()}, on the node that leads the Raft group
 * only, scans the {@value ConfigKeyspaces#HISTORY} keyspace and deletes the entries older than
 * {@link Settings#maxAge()} (by the time of the change, as Nacos's 30-day retention) and those beyond
 * the newest {@link Settings#maxPerConfig()} of each config.
 *
 * <p>Deletes are proposed in batches of {@link Settings#batchSize()} ({@code Command.batch} of
 * {@code Op.delete}); a batch is idempotent (deleting a deleted key changes nothing), so a run cut
 * short by a leader change or a failed write is simply finished by a later run, on whichever node
 * leads then. New entries only ever make old ones more deletable, so deciding from a scan that
 * concurrent publishes extend is safe. Runs on its own thread; {@link #runOnce()} may be called
 * directly (tests).
 */
public final class HistoryRetention implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(HistoryRetention.class);
    private static final int SCAN_PAGE = 256;

    /**
     * @param maxAge       entries older than this are deleted
     * @param maxPerConfig at most this many newest entries are kept per config
     * @param interval     time between runs
     * @param batchSize    deletes per proposed command
     */
    public record Settings(Duration maxAge, int maxPerConfig, Duration interval, int batchSize) {
        public Settings {
            if (maxAge.isNegative()
                    || maxPerConfig < 1
                    || interval.isNegative()
                    || interval.isZero()
                    || batchSize < 1) {
                throw new IllegalArgumentException("bad history retention settings: " + maxAge + ", " + maxPerConfig
                        + ", " + interval + ", " + batchSize);
            }
        }

        /** 30 days (Nacos's default), 1,000 entries per config, every 10 minutes, 500 deletes per batch. */
        public static Settings defaults() {
            return new Settings(Duration.ofDays(30), 1000, Duration.ofMinutes(10), 500);
        }
    }

    private final KvStore store;
    private final Settings settings;
    private final Clock clock;
    private LeaderOnlyJob job;

    public HistoryRetention(KvStore store, Settings settings, Clock clock) {
        this.store = store;
        this.settings = settings;
        this.clock = clock;
    }

    /** Schedules the runs (the first after one interval). */
    public synchronized HistoryRetention start() {
        if (job == null) {
            job = LeaderOnlyJob.every("history-retention", settings.interval(), this::runOnce);
        }
        return this;
    }

    /**
     * One pass, if this node leads: returns how many entries it deleted (0 on a follower). Blocks
     * until each batch is applied; a failed batch fails the pass.
     */
    public int runOnce() {
        if (!LeaderOnlyJob.leads(store)) {
            return 0;
        }
        long cutoff = clock.millis() - settings.maxAge().toMillis();
        List<byte[]> pending = new ArrayList<>();
        int deleted = 0;
        byte[] currentPrefix = null;
        List<byte[]> currentKeys = new ArrayList<>(); // the current config's entries that survive the age rule
        byte[] start = new byte[0];
        while (true) {
            List<KvEntry> page = store.sweepFrom(ConfigKeyspaces.HISTORY, new byte[0], start, SCAN_PAGE);
            for (KvEntry e : page) {
                byte[] key = e.key();
                if (key.length <= 8) {
                    continue;
                }
                byte[] prefix = Arrays.copyOf(key, key.length - 8);
                if (currentPrefix == null || !Arrays.equals(prefix, currentPrefix)) {
                    deleted += overCount(currentKeys, pending);
                    currentPrefix = prefix;
                    currentKeys.clear();
                }
                if (timeOf(key, e.value()) < cutoff) {
                    pending.add(key);
                } else {
                    currentKeys.add(key);
                }
                deleted += flushIfFull(pending);
            }
            if (page.size() < SCAN_PAGE) {
                break;
            }
            byte[] last = page.get(page.size() - 1).key();
            start = Arrays.copyOf(last, last.length + 1); // the smallest key after the last one
            if (!LeaderOnlyJob.leads(store)) {
                LOG.info("history retention: leadership lost, stopping this pass");
                pending.clear();
                return deleted;
            }
        }
        deleted += overCount(currentKeys, pending);
        deleted += flush(pending);
        return deleted;
    }

    /** Queues all but the newest maxPerConfig of one config's entries (given oldest first). */
    private int overCount(List<byte[]> keys, List<byte[]> pending) {
        int flushed = 0;
        for (int i = 0; i < keys.size() - settings.maxPerConfig(); i++) {
            pending.add(keys.get(i));
            flushed += flushIfFull(pending);
        }
        return flushed;
    }

    private int flushIfFull(List<byte[]> pending) {
        return pending.size() >= settings.batchSize() ? flush(pending) : 0;
    }

    private int flush(List<byte[]> pending) {
        if (pending.isEmpty()) {
            return 0;
        }
        List<Op> ops =
                pending.stream().map(k -> Op.delete(ConfigKeyspaces.HISTORY, k)).toList();
        int n = ops.size();
        pending.clear();
        store.write(Command.batch(ops)).join();
        return n;
    }

    private static long timeOf(byte[] key, byte[] value) {
        try {
            return HistoryCodec.time(value);
        } catch (RuntimeException e) {
            // an entry this version cannot read is left to the count rule, not failed on forever
            LOG.warn(
                    "history entry {} unreadable, kept unless over the count: {}",
                    ByteBuffer.wrap(key, key.length - 8, 8).getLong(),
                    e.toString());
            return Long.MAX_VALUE;
        }
    }

    @Override
    public synchronized void close() {
        if (job != null) {
            job.close();
            job = null;
        }
    }
}
