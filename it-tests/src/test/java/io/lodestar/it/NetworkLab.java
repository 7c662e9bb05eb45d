package io.lodestar.it;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

/**
 * Linux network namespaces for the nodes of one cluster, so node-to-node traffic crosses real
 * virtual links that can be cut: {@link #cutOneWay}, {@link #isolate}, {@link #heal}. Nodes are
 * named by their index; {@link LodestarCluster} runs node i under {@link #launcher} with
 * {@link #address} as its {@code --host}. {@link #close} removes everything; a lab left behind by a
 * test JVM that died is removed by the next lab opened on the machine. Needs root and
 * {@code ip netns} ({@link #unavailableReason} says why not).
 *
 * <p>Layout of one lab, {@code X} chosen per lab (1..254) so that concurrent labs and leftovers
 * never collide, {@code PID} the test JVM's:
 * <pre>
 *  root ns: lsfXh 10.77.X.1/24 ── veth ── switch ns lodestar-it-PID-X-sw: bridge br0
 *                                            ├─ veth ── node ns lodestar-it-PID-X-n0: eth0 10.77.X.10
 *                                            ├─ veth ── node ns lodestar-it-PID-X-n1: eth0 10.77.X.11
 *                                            └─ ...
 * </pre>
 * Each node runs on the default ports (HTTP 8848, Raft 7848): every node has its own network
 * stack. The test JVM reaches every node over {@code lsfXh}; cuts never affect that path. The
 * bridge lives in a namespace of its own rather than the root one because bridged frames go
 * through the root namespace's netfilter when {@code br_netfilter} is loaded, and a Docker daemon
 * there sets FORWARD to DROP.
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
final class NetworkLab implements AutoCloseable {
    static final int HTTP_PORT = 8848;
    static final int RAFT_PORT = 7848;
    /** Every subnet a lab takes, 10.77.X.0/24, lies in this network. */
    static final String NETWORK = "10.77.0.0/16";

    private static final String NS_PREFIX = "lodestar-it-";
    private static final Pattern OWNED_NS = Pattern.compile(Pattern.quote(NS_PREFIX) + "(\\d+)-(\\d+)-(\\w+)");
    /** Locally administered, owned by no interface of the lab: frames sent to it are lost. */
    private static final String NOBODY_MAC = "02:00:00:00:de:ad";

    private static final long PID = ProcessHandle.current().pid();

    private final int size;
    /** Active one-way cuts, as (from, to) node indexes. */
    private final Set<List<Integer>> cuts = new LinkedHashSet<>();

    private int subnet = -1;
    /** Nodes given a new address by {@link #readdress}, by index. */
    private final java.util.Map<Integer, String> readdressed = new java.util.HashMap<>();

    private NetworkLab(int size) {
        this.size = size;
    }

    /**
     * Namespaces and links for {@code size} nodes, node i at 10.77.X.(10+i) in its own namespace.
     * Call only where {@link #unavailableReason} is null.
     */
    static NetworkLab open(int size) {
        NetworkLab lab = new NetworkLab(size);
        reapLeftovers();
        lab.createSwitch();
        try {
            for (int i = 0; i < size; i++) {
                lab.createNode(i);
            }
        } catch (RuntimeException e) {
            lab.close();
            throw e;
        }
        System.out.println("network lab 10.77." + lab.subnet + ".0/24: "
                + IntStream.range(0, size)
                        .mapToObj(i -> "node" + i + "=" + lab.address(i) + " (netns " + lab.namespace("n" + i) + ")")
                        .collect(Collectors.joining(", ")));
        return lab;
    }

    private void createNode(int i) {
        String ns = namespace("n" + i);
        ip("netns", "add", ns);
        ip("-n", ns, "link", "set", "lo", "up");
        ip("-n", ns, "link", "add", "eth0", "type", "veth", "peer", "name", "n" + i, "netns", namespace("sw"));
        ip("-n", namespace("sw"), "link", "set", "n" + i, "master", "br0");
        ip("-n", namespace("sw"), "link", "set", "n" + i, "up");
        ip("-n", ns, "addr", "add", address(i) + "/24", "dev", "eth0");
        ip("-n", ns, "link", "set", "eth0", "up");
    }

    /** Node i's address: its {@code --host}, the only one it has besides loopback. */
    String address(int i) {
        checkNode(i);
        return readdressed.getOrDefault(i, "10.77." + subnet + "." + (10 + i));
    }

    /**
     * Gives node i a new address, 10.77.X.(100+i), in place of its old one, as a host that came
     * back from a restart with another IP; returns it. Stop the node's process first.
     */
    String readdress(int i) {
        String old = address(i);
        String fresh = "10.77." + subnet + "." + (100 + i);
        ip("-n", namespace("n" + i), "addr", "del", old + "/24", "dev", "eth0");
        ip("-n", namespace("n" + i), "addr", "add", fresh + "/24", "dev", "eth0");
        readdressed.put(i, fresh);
        return fresh;
    }

    /** The command that runs node i's java in its namespace (it execs in place). */
    List<String> launcher(int i) {
        checkNode(i);
        return List.of("ip", "netns", "exec", namespace("n" + i));
    }

    /** Drops every packet node {@code from} sends to node {@code to}; the other direction still flows. */
    void cutOneWay(int from, int to) {
        checkNode(from);
        checkNode(to);
        if (from == to) {
            throw new IllegalArgumentException("a node cannot be cut from itself");
        }
        ip(
                "-n",
                namespace("n" + from),
                "neigh",
                "replace",
                address(to),
                "lladdr",
                NOBODY_MAC,
                "nud",
                "permanent",
                "dev",
                "eth0");
        cuts.add(List.of(from, to));
    }

    /** Cuts node i from every other node, both ways; the test JVM still reaches it. */
    void isolate(int i) {
        for (int other = 0; other < size; other++) {
            if (other != i) {
                cutOneWay(i, other);
                cutOneWay(other, i);
            }
        }
    }

    /** Removes every cut. */
    void heal() {
        for (List<Integer> cut : cuts) {
            ipAllowingMissing("-n", namespace("n" + cut.get(0)), "neigh", "del", address(cut.get(1)), "dev", "eth0");
        }
        cuts.clear();
    }

    /** The active cuts, e.g. {@code [node0->node1]}. */
    String faults() {
        return cuts.stream()
                .map(c -> "node" + c.get(0) + "->node" + c.get(1))
                .toList()
                .toString();
    }

    private void checkNode(int i) {
        if (i < 0 || i >= size) {
            throw new IllegalArgumentException("node " + i + " is not in this lab of " + size);
        }
    }

    /** Deletes the namespaces (killing what still runs in them) and the uplink. */
    @Override
    public void close() {
        if (subnet < 0) {
            return;
        }
        for (int i = 0; i < size; i++) {
            deleteNamespace(namespace("n" + i));
        }
        deleteNamespace(namespace("sw"));
        // Destroying the switch namespace destroys the root end of its veth too, asynchronously.
        ipAllowingMissing("link", "del", hostLink(subnet));
        cuts.clear();
        subnet = -1;
    }

    private String namespace(String role) {
        return NS_PREFIX + PID + "-" + subnet + "-" + role;
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
            if (owner == PID
                    || ProcessHandle.of(owner).map(ProcessHandle::isAlive).orElse(false)) {
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
                        h.onExit()
                                .orTimeout(10, TimeUnit.SECONDS)
                                .exceptionally(e -> null)
                                .join();
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
        if (r.exit() != 0
                && !r.output().contains("No such file")
                && !r.output().contains("Cannot find device")
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
