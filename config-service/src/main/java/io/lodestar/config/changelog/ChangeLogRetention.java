package io.lodestar.config.changelog;

import io.lodestar.config.ConfigKeyspaces;
import io.lodestar.config.LeaderOnlyJob;
import io.lodestar.config.push.PushHub;
import io.lodestar.kv.KvEntry;
import io.lodestar.kv.KvStore;
import io.lodestar.kv.command.Command;
import io.lodestar.kv.command.Compare;
import io.lodestar.kv.command.Op;
import io.lodestar.kv.command.WriteResult;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Keeps the {@link ConfigChangeLog} bounded: every {@link Settings#interval()}, on the leader only,
 * deletes all but the newest {@link Settings#keep()} entries, oldest first, in batches. Each batch
 * also raises the log's floor (the highest trimmed revision) in the same atomic command, guarded on
 * the floor's own revision, so the floor never runs behind what was trimmed and never goes down.
 * A subscriber resuming from before the floor is answered from the configs' current state instead
 * (see {@link PushHub#subscribe}). A pass cut short (lost leadership, failed write) is finished by a
 * later one; deleting a deleted entry changes nothing.
 */
public final class ChangeLogRetention implements AutoCloseable {
    private static final int SCAN_PAGE = 1024;

    /**
     * @param keep      newest entries kept
     * @param interval  time between passes
     * @param batchSize deletes per proposed command
     */
    public record Settings(int keep, Duration interval, int batchSize) {
        public Settings {
            if (keep < 1 || interval.isNegative() || interval.isZero() || batchSize < 1) {
                throw new IllegalArgumentException(
                        "bad change-log retention settings: " + keep + ", " + interval + ", " + batchSize);
            }
        }

        /**
         * 100,000 changes (a client away for that many publishes resumes from current state), every
         * 10 s, 1,000 deletes per command. Often, so that a pass under sustained publishing trims a
         * few seconds' worth of changes: the total work is the same, and small passes keep the
         * trim's commands from crowding out publishes for long.
         */
        public static Settings defaults() {
            return new Settings(100_000, Duration.ofSeconds(10), 1000);
        }
    }

    private final KvStore store;
    private final Settings settings;
    private LeaderOnlyJob job;
    private Tally tally;

    /**
     * What this node has counted: {@code count} entries up to and including {@code lastCounted},
     * true while the floor's revision is still {@code floorRevision}. Entries are only appended
     * after the last one (their keys end in the revision) and only removed by trims, which always
     * move the floor, so a pass counts just what was appended since the last one instead of the
     * whole log at every pass. A trim by another leader changes the floor and
     * forces a full count.
     */
    private record Tally(long floorRevision, byte[] lastCounted, long count) {}

    public ChangeLogRetention(KvStore store, Settings settings) {
        this.store = store;
        this.settings = settings;
    }

    /** Schedules the passes (the first after one interval). */
    public synchronized ChangeLogRetention start() {
        if (job == null) {
            job = LeaderOnlyJob.every("change-log-retention", settings.interval(), this::runOnce);
        }
        return this;
    }

    /** One pass if this node leads: how many entries it deleted (0 on a follower). Blocks on each batch. */
    public synchronized int runOnce() {
        if (!LeaderOnlyJob.leads(store)) {
            return 0;
        }
        long excess = count() - settings.keep();
        int deleted = 0;
        while (excess > 0 && LeaderOnlyJob.leads(store)) {
            // from just above the floor: a scan from the log's start would step over every entry
            // trimmed so far that compaction has not yet dropped, and a pass trims up to a million
            List<KvEntry> oldest = store.sweepFrom(
                    ConfigKeyspaces.CHANGES, ConfigChangeLog.PREFIX, ConfigChangeLog.keyAt(trimmedUpTo() + 1), (int)
                            Math.min(excess, settings.batchSize()));
            if (oldest.isEmpty()) {
                break;
            }
            trim(oldest);
            deleted += oldest.size();
            excess -= oldest.size();
        }
        return deleted;
    }

    /**
     * Deletes these entries (oldest first, all counted) and raises the floor to the last one's
     * revision, atomically; the tally follows.
     */
    private void trim(List<KvEntry> oldest) {
        long newFloor = ConfigChangeLog.revisionOf(oldest.get(oldest.size() - 1).key());
        KvEntry floor = store.get(ConfigKeyspaces.CHANGES, ConfigChangeLog.FLOOR_KEY);
        List<Op> ops = new ArrayList<>(oldest.size() + 1);
        for (KvEntry e : oldest) {
            ops.add(Op.delete(ConfigKeyspaces.CHANGES, e.key()));
        }
        long current = floor == null ? 0 : ByteBuffer.wrap(floor.value()).getLong();
        ops.add(Op.put(
                ConfigKeyspaces.CHANGES,
                ConfigChangeLog.FLOOR_KEY,
                ByteBuffer.allocate(8).putLong(Math.max(current, newFloor)).array()));
        Compare unchanged = Compare.modRevision(
                ConfigKeyspaces.CHANGES, ConfigChangeLog.FLOOR_KEY, floor == null ? 0 : floor.modRevision());
        // A write that fails or times out leaves the tally as it was: if the trim did apply, it moved
        // the floor, and the next count starts over.
        WriteResult result = store.write(Command.of(List.of(unchanged), ops)).join();
        if (!result.succeeded()) {
            throw new IllegalStateException("the change-log floor moved during a trim (another leader trimming?)");
        }
        // the floor put is the only change this command is sure to make: its revision is the floor's
        tally = new Tally(result.revision(), tally.lastCounted(), tally.count() - oldest.size());
    }

    /** The highest trimmed revision (0 before the first trim). */
    private long trimmedUpTo() {
        KvEntry floor = store.get(ConfigKeyspaces.CHANGES, ConfigChangeLog.FLOOR_KEY);
        return floor == null ? 0 : ByteBuffer.wrap(floor.value()).getLong();
    }

    /** Entries in the log now: those counted before, if the floor has not moved since, plus the new ones. */
    private long count() {
        KvEntry floor = store.get(ConfigKeyspaces.CHANGES, ConfigChangeLog.FLOOR_KEY);
        long floorRevision = floor == null ? 0 : floor.modRevision();
        Tally from =
                tally != null && tally.floorRevision() == floorRevision ? tally : new Tally(floorRevision, null, 0);
        long n = from.count();
        byte[] last = from.lastCounted();
        byte[] start = last != null
                ? Arrays.copyOf(last, last.length + 1)
                : ConfigChangeLog.keyAt(
                        floor == null ? 1 : ByteBuffer.wrap(floor.value()).getLong() + 1);
        while (true) {
            List<KvEntry> page = store.sweepFrom(ConfigKeyspaces.CHANGES, ConfigChangeLog.PREFIX, start, SCAN_PAGE);
            n += page.size();
            if (!page.isEmpty()) {
                last = page.get(page.size() - 1).key();
                start = Arrays.copyOf(last, last.length + 1); // the smallest key after it
            }
            if (page.size() < SCAN_PAGE) {
                tally = new Tally(floorRevision, last, n);
                return n;
            }
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
