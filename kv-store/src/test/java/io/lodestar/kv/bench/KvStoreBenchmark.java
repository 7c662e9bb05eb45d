package io.lodestar.kv.bench;

import io.lodestar.kv.KvStoreConfig;
import io.lodestar.kv.cluster.ClusterView;
import io.lodestar.kv.command.Command;
import io.lodestar.kv.command.WriteResult;
import io.lodestar.kv.raft.RaftKvStore;
import io.lodestar.kv.testing.FreePorts;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;

/**
 * Durable write throughput and latency of {@link RaftKvStore}, plus the raw fsync rate of the disk
 * the data sits on, printed as one markdown table.
 *
 * <p>Each cell (group size x proposers) starts a fresh group on a fresh data directory, exactly as
 * production does ({@link RaftKvStore#start} with {@link KvStoreConfig#of}: Raft log and meta
 * fsynced), waits for a ready leader, runs the proposers through a warm-up and then a measured
 * window, stops the group and deletes its directory. A proposer is a thread keeping exactly one
 * write in flight: issue a put of a unique 16-byte key with a 256-byte value to the leader, wait
 * for its future, repeat. A put counts (throughput and latency) if it completes inside the
 * measured window; any failed or hung write is an error. The disk's own fsync rate is probed before
 * and after the cells (4 KiB appends, each followed by {@code FileChannel.force(false)}); the
 * table's batching factor is puts/s over the mean of the two probes.
 *
 * <p>Not a JUnit test (no Test/IT suffix): run it with {@code kv-store/bench/run.sh}.
 */
public final class KvStoreBenchmark {
    static final String KEYSPACE = "bench";
    static final int KEY_BYTES = 16;
    static final int VALUE_BYTES = 256;
    static final int FSYNC_BLOCK = 4096;
    static final byte[] SECRET = "bench-cluster-secret".getBytes(StandardCharsets.UTF_8);
    /** A write not answered within this is a hung write (the store's own timeout is 5 s). */
    static final long HANG_MS = 30_000;

    static final long READY_TIMEOUT_MS = 60_000;

    record Options(
            double warmupSec,
            double measureSec,
            double fsyncSec,
            Path dir,
            List<Integer> groups,
            List<Integer> proposers) {}

    record FsyncResult(long count, double seconds, double meanMs, double p50Ms, double p99Ms, double maxMs) {
        double perSecond() {
            return count / seconds;
        }
    }

    record Cell(
            int groupSize,
            int proposers,
            long puts,
            double seconds,
            double p50Ms,
            double p99Ms,
            double meanMs,
            double maxMs,
            long errors,
            String firstError,
            long revisionDelta,
            long acknowledged,
            boolean leaderChanged,
            double cpuSeconds,
            long jitMs,
            long gcMs) {
        double perSecond() {
            return puts / seconds;
        }

        /** CPU cores this JVM (store, proposers, everything) used on average in the measured window. */
        double cores() {
            return cpuSeconds / seconds;
        }

        /** This JVM's CPU time per measured put, in microseconds: less sensitive to a busy machine than puts/s. */
        double cpuMicrosPerPut() {
            return puts == 0 ? 0 : cpuSeconds * 1e6 / puts;
        }
    }

    public static void main(String[] args) throws Exception {
        Options opt;
        try {
            opt = parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println("error: " + e.getMessage());
            System.err.println(usage());
            System.exit(2);
            return;
        }
        Path dir = opt.dir().toAbsolutePath().normalize();
        Files.createDirectories(dir);
        FileStore store = Files.getFileStore(dir);
        long maxHeap = Runtime.getRuntime().maxMemory();

        out("# KvStoreBenchmark");
        out(String.format(
                Locale.ROOT,
                "java %s (%s), %d CPUs, max heap %d MiB (Runtime.maxMemory), GC %s",
                System.getProperty("java.version"),
                System.getProperty("java.vm.name"),
                Runtime.getRuntime().availableProcessors(),
                maxHeap >> 20,
                gcNames()));
        out(String.format(
                Locale.ROOT,
                "data dir %s on %s (%s), load average %.2f",
                dir,
                store.name(),
                store.type(),
                loadAverage()));
        out(String.format(
                Locale.ROOT,
                "warm-up %.1f s, measured %.1f s per cell; %d-byte keys, %d-byte values, "
                        + "keyspace \"%s\"; fsync probe %.1f s",
                opt.warmupSec(),
                opt.measureSec(),
                KEY_BYTES,
                VALUE_BYTES,
                KEYSPACE,
                opt.fsyncSec()));
        if ("tmpfs".equalsIgnoreCase(store.type()) || "ramfs".equalsIgnoreCase(store.type())) {
            out("WARNING: the data dir is on " + store.type() + ": fsync is free there, the figures mean nothing. "
                    + "Use --dir on a real disk.");
        }

        FsyncResult fsyncBefore = measureFsync(dir, opt.fsyncSec());
        printFsync("before the cells", fsyncBefore);

        List<Cell> cells = new ArrayList<>();
        int cellNo = 0;
        for (int groupSize : opt.groups()) {
            for (int proposers : opt.proposers()) {
                Path cellDir = dir.resolve("cell-" + (cellNo++) + "-g" + groupSize + "-p" + proposers);
                Cell c;
                try {
                    c = runCell(groupSize, proposers, cellDir, opt);
                } catch (Exception e) {
                    // A group that never became ready (or could not start) is a failed cell, not the end of the run.
                    c = new Cell(
                            groupSize,
                            proposers,
                            0,
                            opt.measureSec(),
                            0,
                            0,
                            0,
                            0,
                            1,
                            String.valueOf(e),
                            0,
                            0,
                            false,
                            0,
                            0,
                            0);
                }
                cells.add(c);
                out(String.format(
                        Locale.ROOT,
                        "[%d node(s), %2d proposers] %d puts in %.2f s = %.0f puts/s; latency ms p50 %.2f p99 %.2f "
                                + "mean %.2f max %.2f; errors %d%s; revision +%d for %d acks%s; "
                                + "JVM CPU %.2f cores = %.0f us/put; in the window JIT %d ms, GC %d ms; load avg %.2f",
                        c.groupSize(),
                        c.proposers(),
                        c.puts(),
                        c.seconds(),
                        c.perSecond(),
                        c.p50Ms(),
                        c.p99Ms(),
                        c.meanMs(),
                        c.maxMs(),
                        c.errors(),
                        c.firstError() == null ? "" : " (first: " + c.firstError() + ")",
                        c.revisionDelta(),
                        c.acknowledged(),
                        c.revisionDelta() == c.acknowledged() ? "" : " MISMATCH",
                        c.cores(),
                        c.cpuMicrosPerPut(),
                        c.jitMs(),
                        c.gcMs(),
                        loadAverage()));
                if (c.leaderChanged()) {
                    out("WARNING: leadership changed during the cell; later writes were forwarded");
                }
            }
        }

        FsyncResult fsyncAfter = measureFsync(dir, opt.fsyncSec());
        printFsync("after the cells", fsyncAfter);
        // The disk is probed before and after the cells; on a busy machine the two differ, so the
        // factor uses their mean (on a quiet one they agree).
        double fsyncRate = (fsyncBefore.perSecond() + fsyncAfter.perSecond()) / 2;
        double fsyncMeanMs = (fsyncBefore.meanMs() + fsyncAfter.meanMs()) / 2;

        out("");
        out(String.format(
                Locale.ROOT,
                "Disk: %.0f fsyncs/s, mean %.3f ms per 4 KiB append + force(false) "
                        + "(before %.0f/s, after %.0f/s). Heap: %d MiB. Warm-up %.1f s, measured %.1f s per cell.",
                fsyncRate,
                fsyncMeanMs,
                fsyncBefore.perSecond(),
                fsyncAfter.perSecond(),
                maxHeap >> 20,
                opt.warmupSec(),
                opt.measureSec()));
        out("");
        out("| group size | proposers | puts/s | p50 ms | p99 ms | batching factor vs fsync | errors |");
        out("|---:|---:|---:|---:|---:|---:|---:|");
        long totalErrors = 0;
        for (Cell c : cells) {
            totalErrors += c.errors();
            out(String.format(
                    Locale.ROOT,
                    "| %d | %d | %.0f | %.2f | %.2f | %.2f | %d |",
                    c.groupSize(),
                    c.proposers(),
                    c.perSecond(),
                    c.p50Ms(),
                    c.p99Ms(),
                    c.perSecond() / fsyncRate,
                    c.errors()));
        }
        System.out.flush();
        // JRaft and bolt leave non-daemon threads behind after shutdown.
        System.exit(totalErrors == 0 ? 0 : 1);
    }

    // ---------------------------------------------------------------- one cell

    static Cell runCell(int groupSize, int proposers, Path cellDir, Options opt) throws Exception {
        deleteTree(cellDir);
        Files.createDirectories(cellDir);
        List<String> peers = new ArrayList<>();
        for (int i = 0; i < groupSize; i++) {
            peers.add("127.0.0.1:" + FreePorts.next());
        }
        List<RaftKvStore> nodes = new ArrayList<>();
        try {
            for (int i = 0; i < groupSize; i++) {
                String[] hp = peers.get(i).split(":");
                KvStoreConfig config = KvStoreConfig.of(
                        hp[0],
                        Integer.parseInt(hp[1]),
                        groupSize == 1 ? List.of() : peers,
                        cellDir.resolve("node" + i),
                        SECRET,
                        Set.of(KEYSPACE));
                nodes.add(RaftKvStore.start(config));
            }
            RaftKvStore leader = awaitReadyLeader(nodes);
            String leaderAddress = leader.cluster().self();
            long revisionBefore = leader.revision();

            Proposer[] workers = new Proposer[proposers];
            Window window = new Window();
            for (int p = 0; p < proposers; p++) {
                workers[p] = new Proposer(p, leader, window);
            }
            for (Proposer w : workers) {
                w.start();
            }
            sleepSeconds(opt.warmupSec());
            long cpuStart = processCpuNanos();
            long jitStart = jitMillis();
            long gcStart = gcMillis();
            window.start = System.nanoTime();
            sleepSeconds(opt.measureSec());
            window.end = System.nanoTime();
            long cpuEnd = processCpuNanos();
            long jitEnd = jitMillis();
            long gcEnd = gcMillis();
            window.stopped = true;
            for (Proposer w : workers) {
                if (!w.finished.await(HANG_MS + 5_000, TimeUnit.MILLISECONDS)) {
                    w.noteError("proposer still waiting for a write " + (HANG_MS + 5_000) + " ms after stop");
                }
            }
            long revisionAfter = leader.revision();
            boolean leaderChanged = !leaderAddress.equals(leader.cluster().leader());

            long total = 0;
            long errors = 0;
            long acknowledged = 0;
            String firstError = null;
            for (Proposer w : workers) {
                total += w.latencies.size;
                errors += w.errors.get();
                acknowledged += w.acknowledged;
                if (firstError == null) {
                    firstError = w.firstError;
                }
            }
            long[] all = new long[(int) total];
            int at = 0;
            for (Proposer w : workers) {
                System.arraycopy(w.latencies.values, 0, all, at, w.latencies.size);
                at += w.latencies.size;
            }
            Arrays.sort(all);
            double seconds = (window.end - window.start) / 1e9;
            return new Cell(
                    groupSize,
                    proposers,
                    total,
                    seconds,
                    ms(percentile(all, 0.50)),
                    ms(percentile(all, 0.99)),
                    ms(mean(all)),
                    ms(all.length == 0 ? 0 : all[all.length - 1]),
                    errors,
                    firstError,
                    revisionAfter - revisionBefore,
                    acknowledged,
                    leaderChanged,
                    (cpuEnd - cpuStart) / 1e9,
                    jitEnd - jitStart,
                    gcEnd - gcStart);
        } finally {
            closeAll(nodes);
            deleteTree(cellDir);
            System.gc();
        }
    }

    /** The measured window, in System.nanoTime; a put counts if it completes inside it. */
    static final class Window {
        volatile long start = Long.MAX_VALUE;
        volatile long end = Long.MAX_VALUE;
        volatile boolean stopped;
    }

    /**
     * One write in flight: issue, and on its completion record it and issue the next. An async
     * loop rather than a thread, so the figures measure the store, not 64 threads waking up.
     */
    static final class Proposer {
        final int id;
        final RaftKvStore target;
        final Window window;
        final CountDownLatch finished = new CountDownLatch(1);
        final LongList latencies = new LongList();
        final AtomicLong errors = new AtomicLong();
        final SplittableRandom random;
        final byte[] valueTemplate = new byte[VALUE_BYTES];
        volatile String firstError;
        long acknowledged;
        long seq;

        Proposer(int id, RaftKvStore target, Window window) {
            this.id = id;
            this.target = target;
            this.window = window;
            this.random = new SplittableRandom(0x5EEDL * 31 + id);
            random.nextBytes(valueTemplate);
        }

        void start() {
            next();
        }

        private void next() {
            if (window.stopped) {
                finished.countDown();
                return;
            }
            byte[] key = ByteBuffer.allocate(KEY_BYTES)
                    .putInt(0x62656e63)
                    .putInt(id)
                    .putLong(seq)
                    .array();
            byte[] value = valueTemplate.clone();
            ByteBuffer.wrap(value).putLong(seq);
            seq++;
            long started = System.nanoTime();
            CompletableFuture<WriteResult> f;
            try {
                f = target.write(Command.put(KEYSPACE, key, value));
            } catch (RuntimeException e) {
                noteError(String.valueOf(e));
                finished.countDown();
                return;
            }
            f.whenComplete((r, e) -> {
                long ended = System.nanoTime();
                if (e != null) {
                    // stop this proposer: an error must be looked at, and an inline retry could recurse
                    noteError(String.valueOf(e));
                    finished.countDown();
                    return;
                }
                if (!r.succeeded()) {
                    noteError("put not applied: " + r);
                } else {
                    acknowledged++;
                    if (ended >= window.start && ended < window.end) {
                        latencies.add(ended - started);
                    }
                }
                next();
            });
        }

        void noteError(String message) {
            errors.incrementAndGet();
            if (firstError == null) {
                firstError = message;
            }
        }
    }

    static RaftKvStore awaitReadyLeader(List<RaftKvStore> nodes) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(READY_TIMEOUT_MS);
        String last = "nothing checked yet";
        while (System.nanoTime() < deadline) {
            String leader = null;
            RaftKvStore leaderNode = null;
            boolean ok = true;
            for (RaftKvStore n : nodes) {
                ClusterView v = n.cluster();
                if (!n.readiness().ready()) {
                    ok = false;
                    last = v.self() + " not ready: " + n.readiness().reason();
                    break;
                }
                if (v.leader() == null || (leader != null && !leader.equals(v.leader()))) {
                    ok = false;
                    last = "no agreed leader (" + v.self() + " sees " + v.leader() + ")";
                    break;
                }
                leader = v.leader();
                if (leader.equals(v.self())) {
                    leaderNode = n;
                }
            }
            if (ok && leaderNode != null) {
                return leaderNode;
            }
            Thread.sleep(20);
        }
        throw new IllegalStateException("no ready leader within " + READY_TIMEOUT_MS + " ms: " + last);
    }

    /**
     * One at a time, always the current leader first, as a rolling stop would: each close hands
     * leadership to a running follower instead of leaving the survivors to an election.
     */
    static void closeAll(List<RaftKvStore> nodes) {
        List<RaftKvStore> rest = new ArrayList<>(nodes);
        while (!rest.isEmpty()) {
            RaftKvStore next =
                    rest.stream().filter(KvStoreBenchmark::leads).findFirst().orElse(rest.get(0));
            rest.remove(next);
            closeQuietly(next);
        }
    }

    static boolean leads(RaftKvStore n) {
        try {
            ClusterView v = n.cluster();
            return v.self().equals(v.leader());
        } catch (RuntimeException e) {
            return false;
        }
    }

    static void closeQuietly(RaftKvStore n) {
        try {
            n.close();
        } catch (RuntimeException e) {
            System.err.println("closing a node failed: " + e);
        }
    }

    // ---------------------------------------------------------------- fsync probe

    static void printFsync(String when, FsyncResult f) {
        out(String.format(
                Locale.ROOT,
                "disk fsync %s: %.0f fsyncs/s, mean %.3f ms (p50 %.3f, p99 %.3f, max %.3f) "
                        + "over %d x %d-byte appends + FileChannel.force(false) in %.1f s; load avg %.2f",
                when,
                f.perSecond(),
                f.meanMs(),
                f.p50Ms(),
                f.p99Ms(),
                f.maxMs(),
                f.count(),
                FSYNC_BLOCK,
                f.seconds(),
                loadAverage()));
    }

    /** Appends 4 KiB blocks to a fresh file, each followed by FileChannel.force(false), for {@code seconds}. */
    static FsyncResult measureFsync(Path dir, double seconds) throws IOException {
        Path file = dir.resolve("fsync-probe.bin");
        Files.deleteIfExists(file);
        ByteBuffer block = ByteBuffer.allocateDirect(FSYNC_BLOCK);
        byte[] noise = new byte[FSYNC_BLOCK];
        new SplittableRandom(42).nextBytes(noise);
        block.put(noise).flip();
        LongList lat = new LongList();
        long start;
        long end;
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
            start = System.nanoTime();
            long stopAt = start + (long) (seconds * 1e9);
            long now = start;
            while (now < stopAt) {
                block.rewind();
                while (block.hasRemaining()) {
                    ch.write(block);
                }
                ch.force(false);
                long t = System.nanoTime();
                lat.add(t - now);
                now = t;
            }
            end = now;
        } finally {
            Files.deleteIfExists(file);
        }
        long[] all = Arrays.copyOf(lat.values, lat.size);
        Arrays.sort(all);
        return new FsyncResult(
                all.length,
                (end - start) / 1e9,
                ms(mean(all)),
                ms(percentile(all, 0.50)),
                ms(percentile(all, 0.99)),
                ms(all.length == 0 ? 0 : all[all.length - 1]));
    }

    // ---------------------------------------------------------------- helpers

    /** A growable long array: no boxing on the proposer's path. */
    static final class LongList {
        long[] values = new long[1 << 14];
        int size;

        void add(long v) {
            if (size == values.length) {
                values = Arrays.copyOf(values, values.length * 2);
            }
            values[size++] = v;
        }
    }

    /** Nearest-rank percentile of a sorted array. */
    static long percentile(long[] sorted, double q) {
        if (sorted.length == 0) {
            return 0;
        }
        int rank = (int) Math.ceil(q * sorted.length);
        return sorted[Math.max(0, Math.min(sorted.length - 1, rank - 1))];
    }

    static double mean(long[] values) {
        if (values.length == 0) {
            return 0;
        }
        double sum = 0;
        for (long v : values) {
            sum += v;
        }
        return sum / values.length;
    }

    static double ms(double nanos) {
        return nanos / 1e6;
    }

    static void sleepSeconds(double seconds) throws InterruptedException {
        long deadline = System.nanoTime() + (long) (seconds * 1e9);
        long left;
        while ((left = deadline - System.nanoTime()) > 0) {
            TimeUnit.NANOSECONDS.sleep(left);
        }
    }

    static void deleteTree(Path root) throws IOException {
        if (!Files.exists(root)) {
            return;
        }
        try (Stream<Path> walk = Files.walk(root)) {
            for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }

    /** CPU time of this whole JVM so far; -1 where the platform does not say. */
    static long processCpuNanos() {
        if (ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os) {
            return os.getProcessCpuTime();
        }
        return -1;
    }

    /**
     * Time the JIT compilers have spent so far (summed over compiler threads): if it grows in the
     * measured window, the warm-up was too short for this machine.
     */
    static long jitMillis() {
        var jit = ManagementFactory.getCompilationMXBean();
        return jit != null && jit.isCompilationTimeMonitoringSupported() ? jit.getTotalCompilationTime() : -1;
    }

    /** Time spent in garbage collection so far (G1: young and mixed pauses plus concurrent cycles). */
    static long gcMillis() {
        long total = 0;
        for (var gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            total += Math.max(0, gc.getCollectionTime());
        }
        return total;
    }

    static double loadAverage() {
        return ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
    }

    static String gcNames() {
        return String.join(
                "+",
                ManagementFactory.getGarbageCollectorMXBeans().stream()
                        .map(b -> b.getName())
                        .toList());
    }

    static void out(String line) {
        System.out.println(line);
        System.out.flush();
    }

    // ---------------------------------------------------------------- options

    static String usage() {
        return """
                usage: KvStoreBenchmark [--warmup=DUR] [--measure=DUR] [--fsync=DUR] [--dir=PATH]
                                        [--groups=1,3] [--proposers=1,16,64]
                  DUR is seconds ("10", "2.5") or with a unit ("500ms", "3s").
                  Defaults: --warmup=3s --measure=10s --fsync=3s --dir=./target/bench-data
                  --fsync is the length of each disk probe (one before, one after the cells).
                  Each flag may also be given as a system property: -Dbench.warmup=1s, -Dbench.measure=3s,
                  -Dbench.fsync=..., -Dbench.dir=..., -Dbench.groups=..., -Dbench.proposers=...
                  (a flag wins over the property).""";
    }

    static Options parse(String[] args) {
        Map<String, String> v = new LinkedHashMap<>();
        for (String name : List.of("warmup", "measure", "fsync", "dir", "groups", "proposers")) {
            String p = System.getProperty("bench." + name);
            if (p != null) {
                v.put(name, p);
            }
        }
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            if (a.equals("-h") || a.equals("--help")) {
                System.out.println(usage());
                System.exit(0);
            }
            if (!a.startsWith("--")) {
                throw new IllegalArgumentException("unexpected argument " + a);
            }
            String name;
            String value;
            int eq = a.indexOf('=');
            if (eq > 0) {
                name = a.substring(2, eq);
                value = a.substring(eq + 1);
            } else {
                name = a.substring(2);
                if (i + 1 >= args.length) {
                    throw new IllegalArgumentException("--" + name + " needs a value");
                }
                value = args[++i];
            }
            if (!List.of("warmup", "measure", "fsync", "dir", "groups", "proposers")
                    .contains(name)) {
                throw new IllegalArgumentException("unknown option --" + name);
            }
            v.put(name, value);
        }
        Options o = new Options(
                seconds(v.getOrDefault("warmup", "3s")),
                seconds(v.getOrDefault("measure", "10s")),
                seconds(v.getOrDefault("fsync", "3s")),
                dataDir(v.get("dir")),
                ints(v.getOrDefault("groups", "1,3")),
                ints(v.getOrDefault("proposers", "1,16,64")));
        if (o.measureSec() <= 0 || o.fsyncSec() <= 0 || o.warmupSec() < 0) {
            throw new IllegalArgumentException("durations must be positive (warm-up may be 0)");
        }
        if (o.groups().stream().anyMatch(g -> g < 1) || o.proposers().stream().anyMatch(p -> p < 1)) {
            throw new IllegalArgumentException("group sizes and proposer counts must be at least 1");
        }
        return o;
    }

    /**
     * The data dir: as given, a relative one resolved against the directory run.sh was started from
     * ({@code bench.callerDir}); by default {@code target/bench-data} under the working directory.
     */
    static Path dataDir(String given) {
        if (given == null) {
            return Path.of("target/bench-data");
        }
        Path p = Path.of(given);
        String callerDir = System.getProperty("bench.callerDir");
        return p.isAbsolute() || callerDir == null ? p : Path.of(callerDir).resolve(p);
    }

    static double seconds(String s) {
        String t = s.trim().toLowerCase(Locale.ROOT);
        try {
            if (t.endsWith("ms")) {
                return Double.parseDouble(t.substring(0, t.length() - 2)) / 1000.0;
            }
            if (t.endsWith("s")) {
                return Double.parseDouble(t.substring(0, t.length() - 1));
            }
            return Double.parseDouble(t);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("not a duration: " + s);
        }
    }

    static List<Integer> ints(String s) {
        try {
            return Arrays.stream(s.split(","))
                    .map(String::trim)
                    .filter(x -> !x.isEmpty())
                    .map(Integer::valueOf)
                    .toList();
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("not a comma-separated list of numbers: " + s);
        }
    }
}
