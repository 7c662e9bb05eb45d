package io.lodestar.kv.raft;

import com.alipay.sofa.jraft.Node;
import com.alipay.sofa.jraft.NodeManager;
import com.alipay.sofa.jraft.entity.PeerId;
import io.lodestar.kv.KvEntry;
import io.lodestar.kv.KvStoreConfig;
import io.lodestar.kv.cluster.ClusterView;
import io.lodestar.kv.command.Command;
import io.lodestar.kv.command.WriteResult;
import io.lodestar.kv.testing.Await;
import io.lodestar.kv.testing.FreePorts;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.BiFunction;
import java.util.function.UnaryOperator;
import java.util.stream.IntStream;

/**
 * Real Raft groups on loopback, several nodes in this JVM, each with its own data dir and a fixed
 * port, so a stopped node restarts as the same member. Verbs: start, stop (graceful), halt (no
 * leadership hand-over: the in-JVM stand-in for a crash), wipe; waits all have deadlines.
 */
final class TestCluster implements AutoCloseable {
    static final String KS = "data";
    static final byte[] SECRET = "test-cluster-secret".getBytes(StandardCharsets.UTF_8);
    static final Duration WAIT = Duration.ofSeconds(20);

    private final Path root;
    private final List<String> peers;
    private final AtomicReferenceArray<RaftKvStore> nodes; // read by client threads too
    private final BiFunction<Integer, KvStoreConfig, KvStoreConfig> tweak;

    private TestCluster(Path root, int size, BiFunction<Integer, KvStoreConfig, KvStoreConfig> tweak) {
        this.root = root;
        this.tweak = tweak;
        this.peers = IntStream.range(0, size)
                .mapToObj(i -> "127.0.0.1:" + FreePorts.next())
                .toList();
        this.nodes = new AtomicReferenceArray<>(size);
    }

    static TestCluster start(Path root, int size) {
        return start(root, size, c -> c);
    }

    /** Starts every node, each with {@code tweak} applied to its configuration. */
    static TestCluster start(Path root, int size, UnaryOperator<KvStoreConfig> tweak) {
        return startEach(root, size, (i, c) -> tweak.apply(c));
    }

    /** Starts every node, node {@code i} with {@code tweak(i, config)}. */
    static TestCluster startEach(Path root, int size, BiFunction<Integer, KvStoreConfig, KvStoreConfig> tweak) {
        TestCluster cluster = create(root, size, tweak);
        for (int i = 0; i < size; i++) {
            cluster.startNode(i);
        }
        return cluster;
    }

    /** A cluster with its members chosen but no node started yet. */
    static TestCluster create(Path root, int size, BiFunction<Integer, KvStoreConfig, KvStoreConfig> tweak) {
        return new TestCluster(root, size, tweak);
    }

    KvStoreConfig config(int i) {
        String[] hp = peers.get(i).split(":");
        KvStoreConfig base = KvStoreConfig.of(
                        hp[0],
                        Integer.parseInt(hp[1]),
                        peers.size() == 1 ? List.of() : peers,
                        dataDir(i),
                        SECRET,
                        Set.of(KS))
                .withTimeouts(600, 5000)
                .withHttpAddress(httpAddress(i));
        return tweak.apply(i, base);
    }

    static String httpAddress(int i) {
        return "127.0.0.1:" + (10000 + i);
    }

    /** Starts node {@code i} (again) on its data dir and port. */
    RaftKvStore startNode(int i) {
        if (nodes.get(i) != null) {
            throw new IllegalStateException("node " + i + " is running");
        }
        RaftKvStore n = RaftKvStore.start(config(i));
        nodes.set(i, n);
        return n;
    }

    /** Graceful stop: a leader hands leadership over first. */
    void stopNode(int i) {
        RaftKvStore n = nodes.getAndSet(i, null);
        if (n != null) {
            n.close();
        }
    }

    /**
     * Stops node {@code i} without handing leadership over, the nearest in-JVM stand-in for a crash:
     * its JRaft node is shut down first (JRaft still wakes a candidate as it does), so the store's
     * {@code close()} then finds no leadership to hand over.
     */
    void haltNode(int i) {
        RaftKvStore n = nodes.getAndSet(i, null);
        if (n != null) {
            Node raft = NodeManager.getInstance().get(RaftKvStore.GROUP, PeerId.parsePeer(n.self()));
            if (raft != null) {
                raft.shutdown();
                try {
                    raft.join();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            n.close();
        }
    }

    /** Deletes every file of a stopped node: it comes back as a new, empty member. */
    void wipe(int i) {
        if (nodes.get(i) != null) {
            throw new IllegalStateException("node " + i + " is running");
        }
        KvDirectory.deleteTree(dataDir(i));
    }

    Path dataDir(int i) {
        return root.resolve("node" + i);
    }

    /** The store generation directory node {@code i} is running on (kv/ACTIVE). */
    String activeGeneration(int i) {
        try {
            return Files.readString(dataDir(i).resolve("kv").resolve("ACTIVE"), StandardCharsets.UTF_8)
                    .trim();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    RaftKvStore node(int i) {
        return nodes.get(i);
    }

    int size() {
        return nodes.length();
    }

    String peer(int i) {
        return peers.get(i);
    }

    /** Index of a running node other than {@code excluded}. */
    int other(int... excluded) {
        outer:
        for (int i = 0; i < nodes.length(); i++) {
            for (int e : excluded) {
                if (i == e) {
                    continue outer;
                }
            }
            if (nodes.get(i) != null) {
                return i;
            }
        }
        throw new IllegalStateException("no running node outside " + java.util.Arrays.toString(excluded));
    }

    /** Index of the node that leads and is ready, waiting up to {@link #WAIT}. */
    int awaitLeader() {
        int[] found = {-1};
        Await.until(WAIT, "a ready leader", () -> {
            for (int i = 0; i < nodes.length(); i++) {
                RaftKvStore n = nodes.get(i);
                if (n != null
                        && n.cluster().leader() != null
                        && n.cluster().leader().equals(n.cluster().self())
                        && n.readiness().ready()) {
                    found[0] = i;
                    return true;
                }
            }
            return false;
        });
        return found[0];
    }

    void awaitAllReady() {
        Await.until(
                WAIT,
                "every running node ready",
                () -> running().stream().allMatch(n -> n.readiness().ready()));
    }

    /**
     * Waits until the running nodes are ready, agree on one leader, have published their HTTP
     * addresses and hold identical data: the point after which nothing changes unless a test acts.
     * Returns the leader's index.
     */
    int awaitStable() {
        int[] leader = {-1};
        Await.until(WAIT, "every node ready, agreeing on one leader, http addresses published, identical data", () -> {
            leader[0] = -1;
            for (int i = 0; i < nodes.length(); i++) {
                RaftKvStore n = nodes.get(i);
                if (n != null && peer(i).equals(n.cluster().leader())) {
                    leader[0] = i;
                }
            }
            if (leader[0] < 0) {
                return false;
            }
            String expected = peer(leader[0]);
            for (RaftKvStore n : running()) {
                ClusterView v = n.cluster();
                if (!n.readiness().ready() || !expected.equals(v.leader())) {
                    return false;
                }
                for (int i = 0; i < nodes.length(); i++) {
                    if (nodes.get(i) != null && !Objects.equals(httpAddress(i), httpAddressSeenBy(v, peer(i)))) {
                        return false;
                    }
                }
            }
            return running().stream().map(TestCluster::digest).distinct().count() == 1;
        });
        return leader[0];
    }

    private static String httpAddressSeenBy(ClusterView view, String member) {
        for (ClusterView.Member m : view.members()) {
            if (m.address().equals(member)) {
                return m.httpAddress();
            }
        }
        return null;
    }

    List<RaftKvStore> running() {
        List<RaftKvStore> out = new ArrayList<>();
        for (int i = 0; i < nodes.length(); i++) {
            RaftKvStore n = nodes.get(i);
            if (n != null) {
                out.add(n);
            }
        }
        return out;
    }

    /** Waits until every running node holds the same data at the same revision. */
    void awaitIdentical() {
        Await.until(
                WAIT,
                "identical replicas",
                () -> running().stream().map(TestCluster::digest).distinct().count() <= 1);
    }

    /** Writes key=value through node {@code i}, waiting for the acknowledgement. */
    WriteResult put(int i, String key, String value) {
        try {
            return nodes.get(i).write(Command.put(KS, bytes(key), bytes(value))).get(15, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new AssertionError("write of " + key + " through node " + i + " failed: " + e, e);
        }
    }

    /** Writes {@code count} keys {@code prefix0..} through node {@code i}, several in flight at a time. */
    void putMany(int i, String prefix, int count) {
        List<java.util.concurrent.CompletableFuture<WriteResult>> inFlight = new ArrayList<>();
        for (int k = 0; k < count; k++) {
            inFlight.add(nodes.get(i).write(Command.put(KS, bytes(prefix + k), bytes("v-" + prefix + k))));
            if (inFlight.size() == 32 || k == count - 1) {
                for (var f : inFlight) {
                    try {
                        f.get(15, TimeUnit.SECONDS);
                    } catch (Exception e) {
                        throw new AssertionError("write through node " + i + " failed: " + e, e);
                    }
                }
                inFlight.clear();
            }
        }
    }

    /** The value of {@code key} on node {@code i}, or null. */
    String value(int i, String key) {
        KvEntry e = nodes.get(i).get(KS, bytes(key));
        return e == null ? null : new String(e.value(), StandardCharsets.UTF_8);
    }

    static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /** SHA-256 over every key, value and revision pair in the data keyspace, plus the store revision. */
    static String digest(RaftKvStore node) {
        try {
            MessageDigest md = MessageDigest.getInstance("SHA-256");
            for (KvEntry e : node.scan(KS, new byte[0], Integer.MAX_VALUE)) {
                md.update(e.key());
                md.update((byte) 0);
                md.update(e.value());
                md.update((byte) 0);
                md.update(Long.toString(e.createRevision()).getBytes(StandardCharsets.UTF_8));
                md.update((byte) ':');
                md.update(Long.toString(e.modRevision()).getBytes(StandardCharsets.UTF_8));
                md.update((byte) 0);
            }
            md.update(Long.toString(node.revision()).getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(md.digest());
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public void close() {
        List<RuntimeException> errors = new ArrayList<>();
        for (int i = 0; i < nodes.length(); i++) {
            try {
                haltNode(i);
            } catch (RuntimeException e) {
                errors.add(e);
            }
        }
        if (!errors.isEmpty()) {
            throw errors.get(0);
        }
    }
}
