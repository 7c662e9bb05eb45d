package io.lodestar.it;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A JUnit extension giving each node of a cluster its own Linux network namespace, so node-to-node
 * traffic crosses real virtual links that the test can cut: {@link #cut}, {@link #cutOneWay},
 * {@link #isolate}, {@link #heal}. Everything (processes, namespaces, links) is torn down after
 * each test, also when it failed; a lab left behind by a test JVM that died is removed by the next
 * lab created on the machine. Needs root and {@code ip netns}; without them the test is skipped
 * with the reason.
 *
 * <p>Layout of one lab, {@code X} chosen per lab (1..254) so that concurrent labs and leftovers
 * never collide, {@code PID} the test JVM's:
 * <pre>
 *  root ns: lsfXh 10.77.X.1/24 ── veth ── switch ns lodestar-it-PID-X-sw: bridge br0
 *                                            ├─ veth ── node ns lodestar-it-PID-X-n0: eth0 10.77.X.10
 *                                            ├─ veth ── node ns lodestar-it-PID-X-n1: eth0 10.77.X.11
 *                                            └─ ...
 * </pre>
 * Each node runs under {@code ip netns exec} with {@code --host} its namespace's address, on the
 * default ports (HTTP 8848, Raft 7848): every node has its own network stack. The test JVM reaches
 * every node over {@code lsfXh}; cuts never affect that path. The bridge lives in a namespace of
 * its own rather than the root one because bridged frames go through the root namespace's
 * netfilter when {@code br_netfilter} is loaded, and a Docker daemon there sets FORWARD to DROP.
 *
 * <p>How a cut works: cutting A→B replaces A's neighbour (ARP) entry for B's address with a
 * permanent one pointing at a MAC address nobody owns. A's packets to B still leave A, the bridge
 * floods them and every receiver drops them: a silent loss, as in a real partition (no RST, no
 * ICMP; the sender only sees timeouts). Packets from B to A still arrive, so, as with a DROP rule on
 * A's output, TCP breaks both ways for anything A must answer. A blackhole or unreachable route
 * would instead fail A's own send() at once (EINVAL, EHOSTUNREACH), which no partition does. Healing
 * deletes the entries and ARP resolves the real address again on the next packet. Only iproute2 is
 * needed.
 */
final class NetworkLab implements AfterEachCallback {
    static final int HTTP_PORT = 8848;
    static final int RAFT_PORT = 7848;
    /** Every subnet a lab takes, 10.77.X.0/24, lies in this network. */
    static final String NETWORK = "10.77.0.0/16";
    private static final String NS_PREFIX = "lodestar-it-";
    private static final Pattern OWNED_NS = Pattern.compile(Pattern.quote(NS_PREFIX) + "(\\d+)-(\\d+)-(\\w+)");
    /** Locally administered, owned by no interface of the lab: frames sent to it are lost. */
    private static final String NOBODY_MAC = "02:00:00:00:de:ad";
    private static final long PID = ProcessHandle.current().pid();

    private final Servers servers = new Servers();
    private final Map<ServerProcess, Member> members = new LinkedHashMap<>();
    /** Active one-way cuts, as (from, to). */
    private final Set<List<ServerProcess>> cuts = new LinkedHashSet<>();
    private int subnet = -1;

    private record Member(String namespace, String address) {}

    /**
     * A group of {@code size} nodes (not started), node i at 10.77.X.(10+i) in its own namespace,
     * each given {@code extraArgs} too. Skips the test if namespaces cannot be created here.
     */
    List<ServerProcess> cluster(int size, String... extraArgs) {
        if (subnet >= 0) {
            throw new IllegalStateException("one cluster per lab");
        }
        String unavailable = unavailableReason();
        Assumptions.assumeTrue(unavailable == null, () -> "network-namespace lab unavailable: " + unavailable);
        reapLeftovers();
        createSwitch();
        List<String> peers = new ArrayList<>();
        for (int i = 0; i < size; i++) {
            peers.add(nodeAddress(i) + ":" + RAFT_PORT);
        }
        List<String> args = new ArrayList<>(List.of("--peers", String.join(",", peers), "--cluster-secret", Servers.SECRET));
        args.addAll(List.of(extraArgs));
        List<ServerProcess> nodes = new ArrayList<>();
        for (int i = 0; i < size; i++) {
            String ns = namespace("n" + i);
            String address = nodeAddress(i);
            ip("netns", "add", ns);
            ip("-n", ns, "link", "set", "lo", "up");
            ip("-n", ns, "link", "add", "eth0", "type", "veth", "peer", "name", "n" + i, "netns", namespace("sw"));
            ip("-n", namespace("sw"), "link", "set", "n" + i, "master", "br0");
            ip("-n", namespace("sw"), "link", "set", "n" + i, "up");
            ip("-n", ns, "addr", "add", address + "/24", "dev", "eth0");
            ip("-n", ns, "link", "set", "eth0", "up");
            ServerProcess p = servers.node("node" + i, address, HTTP_PORT, RAFT_PORT,
                    List.of("ip", "netns", "exec", ns), args);
            members.put(p, new Member(ns, address));
            nodes.add(p);
        }
        System.out.println("network lab 10.77." + subnet + ".0/24: " + members.entrySet().stream()
                .map(e -> e.getKey().name + "=" + e.getValue().address() + " (netns " + e.getValue().namespace() + ")")
                .collect(Collectors.joining(", ")));
        return nodes;
    }

    /** Drops all traffic between {@code a} and {@code b}, both ways. */
    void cut(ServerProcess a, ServerProcess b) {
        cutOneWay(a, b);
        cutOneWay(b, a);
    }

    /** Drops every packet {@code from} sends to {@code to}; the other direction still flows. */
    void cutOneWay(ServerProcess from, ServerProcess to) {
        if (from == to) {
            throw new IllegalArgumentException("a node cannot be cut from itself");
        }
        ip("-n", member(from).namespace(), "neigh", "replace", member(to).address(), "lladdr", NOBODY_MAC,
                "nud", "permanent", "dev", "eth0");
        cuts.add(List.of(from, to));
    }

    /** Cuts {@code node} from every other member, both ways; the test JVM still reaches it. */
    void isolate(ServerProcess node) {
        for (ServerProcess other : members.keySet()) {
            if (other != node) {
                cut(node, other);
            }
        }
    }

    /** Removes every cut. */
    void heal() {
        for (List<ServerProcess> cut : cuts) {
            ipAllowingMissing("-n", member(cut.get(0)).namespace(), "neigh", "del", member(cut.get(1)).address(), "dev", "eth0");
        }
        cuts.clear();
    }

    /** The active cuts, e.g. {@code [node0->node1]}. */
    String faults() {
        return cuts.stream().map(c -> c.get(0).name + "->" + c.get(1).name).toList().toString();
    }

    private Member member(ServerProcess p) {
        Member m = members.get(p);
        if (m == null) {
            throw new IllegalArgumentException(p + " is not a node of this lab");
        }
        return m;
    }

    @Override
    public void afterEach(ExtensionContext context) {
        try {
            if (context.getExecutionException().isPresent() && subnet >= 0) {
                System.out.println("network lab 10.77." + subnet + ".0/24 at failure: cuts " + faults());
            }
            servers.afterEach(context);
        } finally {
            teardown();
        }
    }

    private void teardown() {
        if (subnet < 0) {
            return;
        }
        for (Member m : members.values()) {
            deleteNamespace(m.namespace());
        }
        deleteNamespace(namespace("sw"));
        // Destroying the switch namespace destroys the root end of its veth too, asynchronously.
        ipAllowingMissing("link", "del", hostLink(subnet));
        members.clear();
        cuts.clear();
        subnet = -1;
    }

    private String namespace(String role) {
        return NS_PREFIX + PID + "-" + subnet + "-" + role;
    }

    private String nodeAddress(int i) {
        return "10.77." + subnet + "." + (10 + i);
    }

    private static String hostLink(int subnet) {
        return "lsf" + subnet + "h";
    }

    /** Claims a free subnet: the root end of the uplink is the lock (link names are unique). */
    private void createSwitch() {
        String rootAddresses = ip("-o", "-4", "addr", "show");
        for (int attempt = 0; attempt < 254; attempt++) {
            int x = (int) ((PID + attempt) % 254) + 1;
            if (rootAddresses.contains(" 10.77." + x + ".")) {
                continue;
            }
            subnet = x;
            String sw = namespace("sw");
            ip("netns", "add", sw);
            Result claim = run("ip", "link", "add", hostLink(x), "type", "veth", "peer", "name", "uplink", "netns", sw);
            if (claim.exit() != 0) {
                deleteNamespace(sw);
                subnet = -1;
                if (claim.output().contains("File exists")) {
                    continue;
                }
                throw new IllegalStateException("creating the lab's uplink failed: " + claim.output());
            }
            ip("-n", sw, "link", "set", "lo", "up");
            ip("-n", sw, "link", "add", "br0", "type", "bridge");
            ip("-n", sw, "link", "set", "br0", "up");
            ip("-n", sw, "link", "set", "uplink", "master", "br0");
            ip("-n", sw, "link", "set", "uplink", "up");
            ip("addr", "add", "10.77." + x + ".1/24", "dev", hostLink(x));
            ip("link", "set", hostLink(x), "up");
            return;
        }
        throw new IllegalStateException("no free 10.77.X.0/24 subnet for the network lab");
    }

    /** Removes the namespaces (and their processes) of labs whose test JVM is gone. */
    private static void reapLeftovers() {
        for (String line : ip("netns", "list").split("\n")) {
            String name = line.split(" ")[0].trim();
            Matcher m = OWNED_NS.matcher(name);
            if (!m.matches()) {
                continue;
            }
            long owner = Long.parseLong(m.group(1));
            if (owner == PID || ProcessHandle.of(owner).map(ProcessHandle::isAlive).orElse(false)) {
                continue;
            }
            System.out.println("network lab: removing " + name + ", left behind by test JVM " + owner);
            deleteNamespace(name);
            ipAllowingMissing("link", "del", hostLink(Integer.parseInt(m.group(2))));
        }
    }

    /** Kills what still runs in the namespace (its processes keep it alive), then deletes it. */
    private static void deleteNamespace(String ns) {
        Result pids = run("ip", "netns", "pids", ns);
        if (pids.exit() == 0) {
            for (String pid : pids.output().split("\\s+")) {
                if (!pid.isBlank()) {
                    ProcessHandle.of(Long.parseLong(pid.trim())).ifPresent(h -> {
                        h.destroyForcibly();
                        h.onExit().orTimeout(10, TimeUnit.SECONDS).exceptionally(e -> null).join();
                    });
                }
            }
        }
        ipAllowingMissing("netns", "del", ns);
    }

    /** Null if this machine can host a lab, else why not. */
    static String unavailableReason() {
        if (!System.getProperty("os.name", "").toLowerCase().contains("linux")) {
            return "needs Linux network namespaces, this is " + System.getProperty("os.name");
        }
        try {
            String status = Files.readString(Path.of("/proc/self/status"));
            Matcher uid = Pattern.compile("(?m)^Uid:\\s+(\\d+)\\s+(\\d+)").matcher(status);
            if (uid.find() && !uid.group(2).equals("0")) {
                return "needs root (effective uid is " + uid.group(2) + ")";
            }
        } catch (IOException e) {
            return "cannot read /proc/self/status: " + e.getMessage();
        }
        Result probe = run("ip", "netns", "list");
        if (probe.exit() != 0) {
            return "'ip netns list' failed (is iproute2 installed?): " + probe.output();
        }
        String name = NS_PREFIX + PID + "-0-probe";
        Result add = run("ip", "netns", "add", name);
        if (add.exit() != 0) {
            return "'ip netns add' failed: " + add.output();
        }
        run("ip", "netns", "del", name);
        return null;
    }

    private record Result(int exit, String output) {}

    private static String ip(String... args) {
        List<String> cmd = new ArrayList<>(List.of("ip"));
        cmd.addAll(List.of(args));
        Result r = run(cmd.toArray(String[]::new));
        if (r.exit() != 0) {
            throw new IllegalStateException(String.join(" ", cmd) + " failed (exit " + r.exit() + "): " + r.output());
        }
        return r.output();
    }

    private static void ipAllowingMissing(String... args) {
        List<String> cmd = new ArrayList<>(List.of("ip"));
        cmd.addAll(List.of(args));
        Result r = run(cmd.toArray(String[]::new));
        if (r.exit() != 0 && !r.output().contains("No such file") && !r.output().contains("Cannot find device")
                && !r.output().contains("does not exist")) {
            throw new IllegalStateException(String.join(" ", cmd) + " failed (exit " + r.exit() + "): " + r.output());
        }
    }

    private static Result run(String... cmd) {
        try {
            Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!p.waitFor(20, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                return new Result(-1, "timed out: " + out);
            }
            return new Result(p.exitValue(), out.trim());
        } catch (IOException e) {
            return new Result(-1, e.toString());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new Result(-1, "interrupted");
        }
    }
}
