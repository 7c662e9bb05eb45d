package io.lodestar.it;

import com.fasterxml.jackson.databind.JsonNode;
import io.lodestar.kv.testing.Await;
import io.lodestar.kv.testing.FreePorts;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * The one harness of the process-level tests, after Apache Ratis's {@code MiniRaftCluster}: a
 * JUnit extension that starts real server processes (standalone nodes, or one group of nodes per
 * test), answers who leads and whether the group converged, and applies faults to the group's
 * nodes: {@link #kill}, {@link #stop}, {@link #start}, {@link #restart}, {@link #wipe} anywhere;
 * {@link #isolate}, {@link #cut} and {@link #heal} where the group runs in network namespaces
 * ({@link #startInNamespaces}; on loopback they throw, saying so). After each test it kills what is
 * left, removes the namespaces, and prints every node's log when the test failed (so it lands in
 * the test report).
 *
 * <p>Every node runs with {@code --probe-allow} {@link ServerProcess#PROBE_SCOPE}: its health checks
 * reach only this machine and the namespaces of its lab.
 */
final class LodestarCluster implements AfterEachCallback {
    static final String SECRET = "it-tests-cluster-secret-0123456789";
    private static final Duration LEADER_TIMEOUT = Duration.ofSeconds(30);

    private final List<ServerProcess> all = new ArrayList<>();
    private List<ServerProcess> nodes = List.of();
    /** The group's namespaces, or null while it runs on loopback (or there is no group). */
    private NetworkLab lab;

    private Path workDir;

    /** A standalone server on free loopback ports, not started (for JVM flags or a data dir prepared first). */
    ServerProcess standalone(String name, String... extraArgs) {
        ServerProcess p = new ServerProcess(
                workDir(), name, FreePorts.nextPair(ServerProcess.GRPC_OFFSET), FreePorts.next(), List.of(extraArgs));
        all.add(p);
        return p;
    }

    /** A standalone server on free loopback ports, started and settled. */
    ServerProcess startStandalone(String name, String... extraArgs) {
        ServerProcess p = standalone(name, extraArgs).start();
        p.awaitSettled();
        return p;
    }

    /**
     * Starts a group of {@code size} nodes on loopback, each given {@code extraArgs} too, and waits
     * until every node is settled (ready, every member's HTTP address known). Returns the nodes,
     * node i named "node" + i at index i.
     */
    List<ServerProcess> start(int size, String... extraArgs) {
        return startGroup(prepare(size, extraArgs));
    }

    /**
     * As {@link #start(int, String...)}, without starting anything: for data dirs prepared first
     * (a restore); {@link #startPrepared} starts them.
     */
    List<ServerProcess> prepare(int size, String... extraArgs) {
        checkNoGroup();
        List<int[]> ports = new ArrayList<>();
        for (int i = 0; i < size; i++) {
            ports.add(new int[] {FreePorts.nextPair(ServerProcess.GRPC_OFFSET), FreePorts.next()});
        }
        List<String> args =
                groupArgs(ports.stream().map(p -> "127.0.0.1:" + p[1]).toList(), extraArgs);
        List<ServerProcess> group = new ArrayList<>();
        for (int i = 0; i < size; i++) {
            group.add(new ServerProcess(workDir(), "node" + i, ports.get(i)[0], ports.get(i)[1], args));
        }
        nodes = List.copyOf(group);
        return nodes;
    }

    /** Starts the group {@link #prepare} made and waits until every node is settled. */
    List<ServerProcess> startPrepared() {
        return startGroup(nodes);
    }

    /**
     * As {@link #start(int, String...)}, but node i runs in a network namespace of its own (see
     * {@link NetworkLab}), so that {@link #isolate}, {@link #cut} and {@link #heal} work. Skips the
     * test, with the reason, where namespaces cannot be created (not root, no {@code ip}).
     */
    List<ServerProcess> startInNamespaces(int size, String... extraArgs) {
        checkNoGroup();
        String unavailable = NetworkLab.unavailableReason();
        Assumptions.assumeTrue(unavailable == null, () -> "network-namespace lab unavailable: " + unavailable);
        lab = NetworkLab.open(size);
        List<String> peers = new ArrayList<>();
        for (int i = 0; i < size; i++) {
            peers.add(lab.address(i) + ":" + NetworkLab.RAFT_PORT);
        }
        List<String> args = groupArgs(peers, extraArgs);
        List<ServerProcess> group = new ArrayList<>();
        for (int i = 0; i < size; i++) {
            group.add(new ServerProcess(
                    workDir(),
                    "node" + i,
                    lab.address(i),
                    NetworkLab.HTTP_PORT,
                    NetworkLab.RAFT_PORT,
                    lab.launcher(i),
                    args));
        }
        return startGroup(group);
    }

    private void checkNoGroup() {
        if (!nodes.isEmpty()) {
            throw new IllegalStateException("one group per test: " + nodes + " already started");
        }
    }

    private static List<String> groupArgs(List<String> peers, String... extraArgs) {
        // the secret comes from the environment (ServerProcess), as the server takes it
        List<String> args = new ArrayList<>(List.of("--peers", String.join(",", peers)));
        args.addAll(List.of(extraArgs));
        return args;
    }

    private List<ServerProcess> startGroup(List<ServerProcess> group) {
        nodes = List.copyOf(group);
        all.addAll(nodes);
        long start = System.nanoTime();
        nodes.forEach(ServerProcess::start);
        nodes.forEach(ServerProcess::awaitSettled);
        System.out.println(nodes.size() + " nodes started and settled in "
                + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start) + " ms");
        return nodes;
    }

    /**
     * A new member for the group, on free loopback ports, not started: its {@code --peers} are
     * {@code with}'s and its own. Call {@link #regroup} once the group has it.
     */
    ServerProcess newMember(String name, List<ServerProcess> with) {
        int http = FreePorts.nextPair(ServerProcess.GRPC_OFFSET);
        int raft = FreePorts.next();
        List<String> peers =
                new ArrayList<>(with.stream().map(ServerProcess::raftAddress).toList());
        peers.add("127.0.0.1:" + raft);
        ServerProcess p = new ServerProcess(workDir(), name, http, raft, groupArgs(peers));
        all.add(p);
        return p;
    }

    /** The members {@code p} knows, by Raft address. */
    static List<String> members(ServerProcess p) throws IOException {
        List<String> out = new ArrayList<>();
        p.view().get("members").forEach(m -> out.add(m.get("address").asText()));
        return out;
    }

    /**
     * Adds {@code member}, started, to the group through {@code via}, and waits until it is ready. A
     * change that outlived its answer's deadline may have committed: the group's view decides.
     */
    static void addMember(ServerProcess via, ServerProcess member) {
        Await.until(Duration.ofSeconds(60), member + " added to the group", () -> {
            if (!members(via).contains(member.raftAddress())) {
                Http.postForm(
                        via.httpAddress(),
                        "/lodestar/v1/cluster/members",
                        Http.params("address", member.raftAddress()),
                        Duration.ofSeconds(20));
            }
            return members(via).contains(member.raftAddress());
        });
        member.awaitReady();
    }

    /** The group is now {@code group} (after members were dropped or added): what the other verbs act on. */
    void regroup(List<ServerProcess> group) {
        nodes = List.copyOf(group);
    }

    /** Every node of the group but {@code node}. */
    List<ServerProcess> othersThan(ServerProcess node) {
        return nodes.stream().filter(n -> n != node).toList();
    }

    /** Waits until one live node leads and every live node of the group names it; returns it. */
    ServerProcess leader() {
        return awaitLeader(nodes.stream().filter(ServerProcess::alive).toList(), LEADER_TIMEOUT);
    }

    /**
     * Waits until one node of {@code among} leads and every node of {@code among} names it as
     * leader; returns it. The term is not checked against nodes outside {@code among}.
     */
    static ServerProcess awaitLeader(List<ServerProcess> among, Duration timeout) {
        return Await.result(timeout, "a leader agreed on by " + among, () -> {
            ServerProcess leader = selfDeclaredLeader(among);
            if (leader == null) {
                return null;
            }
            for (ServerProcess p : among) {
                if (!leader.raftAddress().equals(p.view().path("leader").asText())) {
                    return null;
                }
            }
            return leader;
        });
    }

    /** The live node that says it leads (it may be a deposed leader that does not know it yet), or null. */
    static ServerProcess selfDeclaredLeader(List<ServerProcess> among) {
        for (ServerProcess p : among) {
            try {
                if (p.alive() && p.raftAddress().equals(p.view().path("leader").asText())) {
                    return p;
                }
            } catch (Exception e) {
                // unreachable or starting: not a leader we can use
            }
        }
        return null;
    }

    /** Every node of the group ready, one agreed leader, and the same revision and applied index everywhere. */
    void awaitConverged(Duration timeout) {
        nodes.forEach(ServerProcess::awaitReady);
        Await.until(timeout, "identical leader, revision and applied index on " + nodes, () -> {
            Set<String> states = new HashSet<>();
            for (ServerProcess p : nodes) {
                JsonNode v = p.view();
                if (v.path("leader").isNull()
                        || v.path("appliedIndex").asLong()
                                != v.path("commitIndex").asLong()) {
                    return false;
                }
                states.add(v.path("leader").asText() + " r" + v.path("revision").asLong() + " i"
                        + v.path("appliedIndex").asLong());
            }
            return states.size() == 1;
        });
    }

    /** SIGKILL: no shutdown hook, no flush. Returns once the process is gone. */
    void kill(ServerProcess node) {
        node.kill();
    }

    /** SIGKILL of every node of the group at once. */
    void killAll() {
        nodes.forEach(ServerProcess::kill);
    }

    /** SIGTERM; returns the exit code. */
    int stop(ServerProcess node) {
        return node.stop();
    }

    /** Starts a node that is down on its data dir and waits until it is ready. */
    void start(ServerProcess node) {
        node.start();
        node.awaitReady();
    }

    /** Starts every node of the group that is down, then waits until each is ready. */
    void startAll() {
        List<ServerProcess> down = nodes.stream().filter(n -> !n.alive()).toList();
        down.forEach(ServerProcess::start);
        down.forEach(ServerProcess::awaitReady);
    }

    /** SIGKILL if running, then starts again on the same data dir and waits until it is ready. */
    void restart(ServerProcess node) {
        node.kill();
        start(node);
    }

    /**
     * SIGKILL, delete the data dir, start again with the same identity and wait until ready: a node
     * that lost its disk, Raft term and vote included.
     */
    void wipe(ServerProcess node) {
        node.kill();
        node.wipeData();
        start(node);
    }

    /**
     * Gives {@code node}, which must be down, a new address in its namespace, and returns the
     * process to start it as: the same name and data dir, {@code --host} the new address and {@code
     * --peers} the other members' and its own. It replaces {@code node} in the group.
     */
    ServerProcess readdress(ServerProcess node) {
        if (node.alive()) {
            throw new IllegalStateException("stop " + node + " before changing its address");
        }
        int i = index(node);
        String fresh = lab("readdress").readdress(i);
        List<String> peers = new ArrayList<>();
        for (ServerProcess n : nodes) {
            peers.add(n == node ? fresh + ":" + NetworkLab.RAFT_PORT : n.raftAddress());
        }
        ServerProcess moved = new ServerProcess(
                workDir(),
                node.name,
                fresh,
                NetworkLab.HTTP_PORT,
                NetworkLab.RAFT_PORT,
                lab.launcher(i),
                groupArgs(peers));
        List<ServerProcess> group = new ArrayList<>(nodes);
        group.set(i, moved);
        nodes = List.copyOf(group);
        all.add(moved);
        return moved;
    }

    /** Cuts {@code node} from every other node of the group, both ways; the test JVM still reaches it. */
    void isolate(ServerProcess node) {
        lab("isolate").isolate(index(node));
    }

    /** Drops every packet {@code from} sends to {@code to}; the other direction still flows. */
    void cut(ServerProcess from, ServerProcess to) {
        lab("cut").cutOneWay(index(from), index(to));
    }

    /** Removes every cut (on loopback there are none). */
    void heal() {
        if (lab != null) {
            lab.heal();
        }
    }

    /** The active cuts, e.g. {@code [node0->node1]}. */
    String faults() {
        return lab == null ? "[]" : lab.faults();
    }

    private NetworkLab lab(String verb) {
        if (lab == null) {
            throw new UnsupportedOperationException(verb + " needs the group in network namespaces: "
                    + (nodes.isEmpty() ? "no group was started" : "it runs on loopback")
                    + "; start it with startInNamespaces");
        }
        return lab;
    }

    private int index(ServerProcess node) {
        int i = nodes.indexOf(node);
        if (i < 0) {
            throw new IllegalArgumentException(node + " is not a node of this group " + nodes);
        }
        return i;
    }

    private Path workDir() {
        if (workDir == null) {
            try {
                workDir = Files.createTempDirectory("lodestar-it-");
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return workDir;
    }

    @Override
    public void afterEach(ExtensionContext context) {
        boolean failed = context.getExecutionException().isPresent();
        try {
            if (failed && lab != null) {
                System.out.println("network lab at failure: cuts " + lab.faults());
            }
            for (ServerProcess p : all) {
                if (p.alive()) {
                    p.kill();
                }
                if (failed) {
                    System.out.println("===== log of " + p.log.getFileName() + " =====\n" + p.logText());
                }
            }
        } finally {
            NetworkLab closing = lab;
            lab = null;
            all.clear();
            nodes = List.of();
            if (!failed && workDir != null) {
                deleteTree(workDir);
            }
            workDir = null;
            if (closing != null) {
                closing.close();
            }
        }
    }

    static void deleteTree(Path dir) {
        try (var walk = Files.walk(dir)) {
            walk.sorted(java.util.Comparator.reverseOrder())
                    .forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            // best effort: a temp dir left behind is harmless
        }
    }
}
