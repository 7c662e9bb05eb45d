package io.lodestar.it;

import static io.lodestar.it.Http.params;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.lodestar.it.HistoryChecker.Installed;
import io.lodestar.it.HistoryChecker.Kind;
import io.lodestar.it.HistoryChecker.Op;
import io.lodestar.it.HistoryChecker.Outcome;
import io.lodestar.kv.testing.Await;
import java.net.ConnectException;
import java.net.http.HttpConnectTimeoutException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The history check: clients publish, compare-and-publish and read a few configs through random
 * nodes while one {@link Fault} strikes the group and is undone; every operation is recorded
 * (sent, answered, outcome), and {@link HistoryChecker} then checks the whole history against the
 * one order of writes the nodes agree on. The rules are in {@link HistoryChecker}. Each fault is
 * its own case, so a violation names the fault that caused it.
 */
@Timeout(value = 150, unit = TimeUnit.SECONDS)
class HistoryCheckIT {
    private static final List<String> KEYS = List.of("reg-0", "reg-1", "reg-2", "reg-3", "reg-4");
    private static final int CLIENTS = 4;
    /** Longer than the server's request timeout (5 s), so the server's own answer normally comes first. */
    private static final Duration CLIENT_TIMEOUT = Duration.ofSeconds(10);
    /** Acknowledged client writes before the fault, and again after it is undone: a healthy period on each side. */
    private static final int WRITES_PER_HEALTHY_PERIOD = 50;

    /** What strikes the group while the clients run; each is undone before the history is checked. */
    enum Fault {
        KILL_LEADER("kill -9 the leader, restart it", false),
        ISOLATE_LEADER("isolate the leader, heal", true),
        ONE_WAY_CUT("cut leader -> follower one way, heal", true),
        KILL_ALL_AND_RESTART("kill -9 every node, restart all", false),
        WIPE_FOLLOWER("wipe a follower's data dir, restart it", false),
        NO_MAJORITY("isolate a follower and kill -9 the leader, heal and restart", true);

        final String description;
        /** Whether it cuts links, so the group must run in network namespaces. */
        final boolean cutsLinks;

        Fault(String description, boolean cutsLinks) {
            this.description = description;
            this.cutsLinks = cutsLinks;
        }

        @Override
        public String toString() {
            return name() + ": " + description;
        }
    }

    @RegisterExtension
    final LodestarCluster cluster = new LodestarCluster();

    private final ConcurrentLinkedQueue<Op> history = new ConcurrentLinkedQueue<>();
    private final AtomicInteger opIds = new AtomicInteger();
    private final List<String> nemesisLog = new ArrayList<>();
    private final ConcurrentLinkedQueue<Throwable> clientDeaths = new ConcurrentLinkedQueue<>();
    private List<ServerProcess> nodes = List.of();
    private long startNanos;

    @ParameterizedTest(name = "{0}")
    @EnumSource(Fault.class)
    void publishesComparesAndReadsAreConsistentWithOneOrder(Fault fault) throws Exception {
        nodes = fault.cutsLinks ? cluster.startInNamespaces(3) : cluster.start(3);
        startNanos = System.nanoTime();
        Map<String, String> initial = new LinkedHashMap<>();
        for (String key : KEYS) {
            Op setup = write("setup", Kind.WRITE, key, nodes.get(0), "init " + key, null);
            assertEquals(Outcome.OK, setup.outcome(), setup.toString());
            initial.put(key, setup.value());
        }
        // Rule 7 takes every key as written before the reads begin, on every node: reads are local,
        // and a follower may not have applied the setup yet when node0 acknowledged it
        for (ServerProcess p : nodes) {
            ConfigApi.awaitServes(p, initial, Duration.ofSeconds(30));
        }

        AtomicBoolean running = new AtomicBoolean(true);
        List<Thread> clients = new ArrayList<>();
        for (int c = 0; c < CLIENTS; c++) {
            String client = "c" + c;
            Thread t = new Thread(() -> runClient(client, nodes, running), "history-client-" + c);
            t.setDaemon(true);
            t.setUncaughtExceptionHandler((thread, e) -> clientDeaths.add(e));
            t.start();
            clients.add(t);
        }
        try {
            awaitHealthyPeriod(fault, "before the fault");
            strike(fault);
            nodes.forEach(ServerProcess::awaitReady);
            event("all ready");
            awaitHealthyPeriod(fault, "after the fault");
        } finally {
            running.set(false);
            for (Thread t : clients) {
                t.join(CLIENT_TIMEOUT.toMillis() + 5_000);
            }
        }
        cluster.heal();
        cluster.startAll();
        cluster.awaitConverged(Duration.ofSeconds(60));

        Map<String, Map<String, String>> finalReads = new LinkedHashMap<>();
        for (ServerProcess p : nodes) {
            Map<String, String> values = new LinkedHashMap<>();
            for (String key : KEYS) {
                Op r = read("final", key, p);
                assertEquals(Outcome.OK, r.outcome(), r.toString());
                values.put(key, r.value());
            }
            finalReads.put(p.name, values);
        }
        List<Op> ops = new ArrayList<>(history);
        Map<String, String> valueByMd5 = new HashMap<>();
        for (Op op : ops) {
            if (op.kind() != Kind.READ) {
                valueByMd5.put(ConfigApi.md5(op.value()), op.value());
            }
        }
        Map<String, Map<String, List<Installed>>> orderByNode = new LinkedHashMap<>();
        for (ServerProcess p : nodes) {
            Map<String, List<Installed>> order = new LinkedHashMap<>();
            for (String key : KEYS) {
                String current = finalReads.get(p.name).get(key);
                order.put(
                        key,
                        HistoryChecker.installedOrder(
                                serverHistory(p, key),
                                current == null ? "(absent)" : ConfigApi.md5(current),
                                valueByMd5));
            }
            orderByNode.put(p.name, order);
        }

        HistoryChecker.Report report = HistoryChecker.check(ops, orderByNode, finalReads);
        System.out.println("history check " + fault + ": nemesis " + nemesisLog);
        System.out.println(
                "history check " + fault.name() + ": " + ops.size() + " operations by " + CLIENTS + " clients on "
                        + KEYS.size() + " configs over "
                        + TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - startNanos) + " s: "
                        + report.stats());
        System.out.println(
                "history check " + fault.name() + ": " + report.violations().size() + " violations, "
                        + report.anomalies().size() + " anomalies");
        report.anomalies().stream().limit(10).forEach(a -> System.out.println("  anomaly " + a));
        report.violations().stream().limit(30).forEach(v -> System.out.println("  VIOLATION " + v));
        assertTrue(
                report.violations().isEmpty(),
                report.violations().size() + " violations, first: "
                        + report.violations().stream().limit(5).toList());
        long acknowledged = ops.stream()
                .filter(o -> o.kind() != Kind.READ && o.outcome() == Outcome.OK)
                .count();
        assertTrue(acknowledged >= 100, "enough acknowledged writes to mean something: " + acknowledged);
    }

    /**
     * Strikes, holds the fault for a while and undoes it (restarting what it killed). Hold times
     * are the faults' durations, not waits for anything.
     */
    private void strike(Fault fault) throws Exception {
        ServerProcess leader = cluster.leader();
        ServerProcess follower = followerOf(leader);
        switch (fault) {
            case KILL_LEADER -> {
                event("kill -9 leader " + leader.name);
                cluster.kill(leader);
                hold(3_000);
                event("restart " + leader.name);
                cluster.start(leader);
            }
            case ISOLATE_LEADER -> {
                event("isolate leader " + leader.name);
                cluster.isolate(leader);
                hold(5_000);
                event("heal");
                cluster.heal();
            }
            case ONE_WAY_CUT -> {
                event("cut " + leader.name + " -> " + follower.name + " one way");
                cluster.cut(leader, follower);
                hold(5_000);
                event("heal");
                cluster.heal();
            }
            case KILL_ALL_AND_RESTART -> {
                event("kill -9 every node");
                cluster.killAll();
                hold(2_000);
                event("restart every node");
                cluster.startAll();
            }
            case WIPE_FOLLOWER -> {
                event("kill -9 follower " + follower.name);
                cluster.kill(follower);
                hold(2_000);
                event("wipe and restart " + follower.name);
                cluster.wipe(follower);
            }
            case NO_MAJORITY -> {
                event("isolate follower " + follower.name + ", kill -9 leader " + leader.name + " (no majority)");
                cluster.isolate(follower);
                cluster.kill(leader);
                hold(3_000);
                event("heal, restart " + leader.name);
                cluster.heal();
                cluster.start(leader);
            }
        }
    }

    /**
     * Waits until the clients got another {@link #WRITES_PER_HEALTHY_PERIOD} writes acknowledged.
     * On a timeout, or if a client thread died, fails with what the clients saw meanwhile and each
     * node's view of the group, on one line: that line is all a CI summary keeps.
     */
    private void awaitHealthyPeriod(Fault fault, String when) {
        long target = acknowledgedClientWrites() + WRITES_PER_HEALTHY_PERIOD;
        long sinceNanos = System.nanoTime();
        try {
            Await.until(Duration.ofSeconds(30), WRITES_PER_HEALTHY_PERIOD + " acknowledged writes " + when, () -> {
                if (!clientDeaths.isEmpty()) {
                    throw new AssertionError("a client thread died", clientDeaths.peek());
                }
                return acknowledgedClientWrites() >= target;
            });
        } catch (AssertionError e) {
            throw new AssertionError(
                    fault.name() + ": " + e.getMessage() + "; nemesis " + nemesisLog + "; outcomes meanwhile "
                            + outcomesSince(sinceNanos) + "; views " + views(),
                    clientDeaths.isEmpty() ? e : clientDeaths.peek());
        }
        event(WRITES_PER_HEALTHY_PERIOD + " writes acknowledged " + when);
    }

    /** Operations invoked since {@code sinceNanos}, counted by kind, outcome, status and node, with one detail each. */
    private Map<String, String> outcomesSince(long sinceNanos) {
        Map<String, Integer> counts = new java.util.TreeMap<>();
        Map<String, String> detail = new HashMap<>();
        for (Op op : history) {
            if (op.invokeNanos() >= sinceNanos) {
                String k = op.kind() + " " + op.outcome() + " " + op.status() + " @" + op.node();
                counts.merge(k, 1, Integer::sum);
                detail.putIfAbsent(k, op.detail().length() > 120 ? op.detail().substring(0, 120) : op.detail());
            }
        }
        Map<String, String> out = new LinkedHashMap<>();
        counts.forEach((k, n) -> out.put(k, n + (detail.get(k).isEmpty() ? "" : " (" + detail.get(k) + ")")));
        return out;
    }

    private List<String> views() {
        List<String> out = new ArrayList<>();
        for (ServerProcess p : nodes) {
            try {
                JsonNode v = Http.JSON.readTree(Http.get(p.httpAddress(), "/lodestar/v1/cluster", Duration.ofSeconds(2))
                        .body());
                out.add(p.name + " leader=" + v.path("leader").asText() + " term="
                        + v.path("term").asText() + " applied="
                        + v.path("appliedIndex").asText());
            } catch (Exception e) {
                out.add(p.name + " " + (p.alive() ? "no view: " + e : "not running"));
            }
        }
        return out;
    }

    private long acknowledgedClientWrites() {
        return history.stream()
                .filter(o -> o.kind() != Kind.READ
                        && o.outcome() == Outcome.OK
                        && !o.client().equals("setup"))
                .count();
    }

    /** A client: random operations on random configs through random live nodes, until told to stop. */
    private void runClient(String client, List<ServerProcess> nodes, AtomicBoolean running) {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        for (int seq = 0; running.get(); seq++) {
            List<ServerProcess> live =
                    nodes.stream().filter(ServerProcess::alive).toList();
            if (live.isEmpty()) {
                pace(50);
                continue;
            }
            String key = KEYS.get(random.nextInt(KEYS.size()));
            ServerProcess node = live.get(random.nextInt(live.size()));
            String value = client + "-" + seq;
            double dice = random.nextDouble();
            if (dice < 0.3) {
                write(client, Kind.WRITE, key, node, value, null);
            } else if (dice < 0.75) {
                // read-modify-write: read through one node, compare-and-publish through another
                Op r = read(client, key, node);
                if (r.outcome() == Outcome.OK && r.value() != null) {
                    write(client, Kind.CAS, key, live.get(random.nextInt(live.size())), value, r.value());
                }
            } else {
                read(client, key, node);
            }
            pace(random.nextInt(5, 30));
        }
    }

    private Op write(String client, Kind kind, String key, ServerProcess node, String value, String expected) {
        Map<String, String> form = params("dataId", key, "group", ConfigApi.GROUP, "content", value);
        if (expected != null) {
            form.put("casMd5", ConfigApi.md5(expected));
        }
        long invoked = System.nanoTime();
        Outcome outcome;
        int status = -1;
        String detail;
        try {
            Http.Response r = Http.postForm(node.httpAddress(), ConfigApi.CONFIGS, form, CLIENT_TIMEOUT);
            status = r.status();
            detail = r.status() == 200 ? "" : r.body();
            outcome = r.status() == 200 && r.body().equals("true")
                    ? Outcome.OK
                    : r.status() == 503 || (r.status() == 409 && kind == Kind.CAS) ? Outcome.FAIL : Outcome.INFO;
        } catch (Exception e) {
            detail = e.toString();
            // refused or not connected: nothing was sent; anything else may have reached the server
            outcome = e instanceof ConnectException || e instanceof HttpConnectTimeoutException
                    ? Outcome.FAIL
                    : Outcome.INFO;
        }
        return record(new Op(
                opIds.incrementAndGet(),
                client,
                kind,
                key,
                node.name,
                value,
                expected,
                invoked,
                System.nanoTime(),
                outcome,
                status,
                detail));
    }

    private Op read(String client, String key, ServerProcess node) {
        long invoked = System.nanoTime();
        Outcome outcome = Outcome.FAIL;
        int status = -1;
        String value = null;
        String detail = "";
        try {
            Http.Response r = Http.get(
                    node.httpAddress(),
                    ConfigApi.CONFIGS + "?" + Http.query(params("dataId", key, "group", ConfigApi.GROUP)),
                    CLIENT_TIMEOUT);
            status = r.status();
            if (r.status() == 200 || r.status() == 404) {
                outcome = Outcome.OK;
                value = r.status() == 200 ? r.body() : null;
            } else {
                detail = r.body();
            }
        } catch (Exception e) {
            detail = e.toString();
        }
        return record(new Op(
                opIds.incrementAndGet(),
                client,
                Kind.READ,
                key,
                node.name,
                value,
                null,
                invoked,
                System.nanoTime(),
                outcome,
                status,
                detail));
    }

    private Op record(Op op) {
        history.add(op);
        return op;
    }

    private ServerProcess followerOf(ServerProcess leader) {
        List<ServerProcess> followers = cluster.othersThan(leader);
        return followers.get(ThreadLocalRandom.current().nextInt(followers.size()));
    }

    private void event(String what) {
        nemesisLog.add(String.format("%.1fs %s", (System.nanoTime() - startNanos) / 1e9, what));
    }

    private static void hold(long millis) throws InterruptedException {
        Thread.sleep(millis);
    }

    private static void pace(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** The node's config history of {@code key}, every page. */
    private static List<HistoryChecker.HistoryEntry> serverHistory(ServerProcess p, String key) throws Exception {
        List<HistoryChecker.HistoryEntry> entries = new ArrayList<>();
        for (int page = 1; ; page++) {
            JsonNode r = Http.json(
                    p.httpAddress(),
                    "/nacos/v1/cs/history?"
                            + Http.query(params(
                                    "search",
                                    "accurate",
                                    "dataId",
                                    key,
                                    "group",
                                    ConfigApi.GROUP,
                                    "pageNo",
                                    String.valueOf(page),
                                    "pageSize",
                                    "500")));
            for (JsonNode item : r.get("pageItems")) {
                entries.add(new HistoryChecker.HistoryEntry(
                        Long.parseLong(item.get("id").asText()),
                        item.get("opType").asText().trim(),
                        item.get("md5").asText()));
            }
            if (page >= r.get("pagesAvailable").asInt()) {
                return entries;
            }
        }
    }
}
