package io.lodestar.it;

import static io.lodestar.it.Http.params;

import com.fasterxml.jackson.databind.JsonNode;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * What the fault tests ask of a group of nodes: who leads, how far each one got, and what each one
 * serves (configs, digests, history), always from one node's own point of view.
 */
final class Cluster {
    static final String CONFIGS = "/nacos/v1/cs/configs";
    static final String GROUP = "DEFAULT_GROUP";

    private Cluster() {}

    /** {@code GET /lodestar/v1/cluster} of one node. */
    static JsonNode view(ServerProcess p) throws Exception {
        return Http.json(p.httpAddress(), "/lodestar/v1/cluster");
    }

    /** The live node that says it leads (it may be a deposed leader that does not know it yet), or null. */
    static ServerProcess selfDeclaredLeader(List<ServerProcess> nodes) {
        for (ServerProcess p : nodes) {
            try {
                if (p.alive() && p.raftAddress().equals(view(p).path("leader").asText())) {
                    return p;
                }
            } catch (Exception e) {
                // unreachable or starting: not a leader we can use
            }
        }
        return null;
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
                if (!leader.raftAddress().equals(view(p).path("leader").asText())) {
                    return null;
                }
            }
            return leader;
        });
    }

    /** Every node ready, one agreed leader, and the same revision and applied index everywhere. */
    static void awaitConverged(List<ServerProcess> nodes, Duration timeout) {
        nodes.forEach(Servers::awaitReady);
        Await.until(timeout, "identical leader, revision and applied index on " + nodes, () -> {
            Set<String> states = new HashSet<>();
            for (ServerProcess p : nodes) {
                JsonNode v = view(p);
                if (v.path("leader").isNull() || v.path("appliedIndex").asLong() != v.path("commitIndex").asLong()) {
                    return false;
                }
                states.add(v.path("leader").asText() + " r" + v.path("revision").asLong() + " i" + v.path("appliedIndex").asLong());
            }
            return states.size() == 1;
        });
    }

    /** The node's store revision (an AssertionError if it does not answer, so it can be used in streams). */
    static long revision(ServerProcess p) {
        try {
            return view(p).get("revision").asLong();
        } catch (Exception e) {
            throw new AssertionError(p + " did not tell its revision", e);
        }
    }

    static Http.Response publish(ServerProcess p, String dataId, String content) throws Exception {
        return Http.postForm(p.httpAddress(), CONFIGS, params("dataId", dataId, "group", GROUP, "content", content));
    }

    static Http.Response read(ServerProcess p, String dataId) throws Exception {
        return Http.get(p.httpAddress(), CONFIGS + "?" + Http.query(params("dataId", dataId, "group", GROUP)));
    }

    /**
     * dataId -> content of every config {@code p} holds in the public namespace's {@link #GROUP},
     * read in pages of 500 (each checked against its md5).
     */
    static Map<String, String> publicConfigs(ServerProcess p) throws Exception {
        Map<String, String> configs = new TreeMap<>();
        for (int page = 1; ; page++) {
            JsonNode r = Http.json(p.httpAddress(), CONFIGS + "?" + Http.query(params("search", "blur", "dataId", "*",
                    "group", GROUP, "pageNo", String.valueOf(page), "pageSize", "500")));
            for (JsonNode c : r.get("pageItems")) {
                String content = c.get("content").asText();
                if (!c.get("md5").asText().equals(md5(content))) {
                    throw new AssertionError(p + " serves " + c.get("dataId") + " with an md5 that is not its content's");
                }
                configs.put(c.get("dataId").asText(), content);
            }
            if (page >= r.get("pagesAvailable").asInt()) {
                return configs;
            }
        }
    }

    /**
     * Waits until {@code p} serves each config of {@code expected} (dataId -> content) with exactly
     * that content; what it serves besides does not matter.
     */
    static void awaitServes(ServerProcess p, Map<String, String> expected, Duration timeout) {
        List<String> wrong = new ArrayList<>();
        Await.until(timeout, "every expected config on " + p + " (missing or different: " + wrong + ")", () -> {
            Map<String, String> served = publicConfigs(p);
            wrong.clear();
            expected.forEach((dataId, content) -> {
                if (!content.equals(served.get(dataId)) && wrong.size() < 10) {
                    wrong.add(dataId);
                }
            });
            return wrong.isEmpty();
        });
    }

    /** Reads each config of {@code expected} with its own GET on {@code p}: every one is there, exactly. */
    static void assertReadable(ServerProcess p, Map<String, String> expected) throws Exception {
        for (Map.Entry<String, String> e : expected.entrySet()) {
            Http.Response r = read(p, e.getKey());
            if (r.status() != 200 || !r.body().equals(e.getValue())) {
                throw new AssertionError(p + " answers " + r.status() + " '" + r.body() + "' for " + e.getKey()
                        + ", acknowledged with '" + e.getValue() + "'");
            }
        }
    }

    /** Starts every node and waits until each is settled (ready, every member's HTTP address known). */
    static List<ServerProcess> start(List<ServerProcess> nodes) {
        long start = System.nanoTime();
        nodes.forEach(ServerProcess::start);
        nodes.forEach(Servers::awaitSettled);
        System.out.println(nodes.size() + " nodes started and settled in "
                + java.util.concurrent.TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start) + " ms");
        return nodes;
    }

    /** The ids of every namespace {@code p} knows, public ("") first. */
    static List<String> namespaces(ServerProcess p) throws Exception {
        List<String> ids = new ArrayList<>();
        for (JsonNode ns : Http.json(p.httpAddress(), "/nacos/v1/console/namespaces").get("data")) {
            ids.add(ns.get("namespace").asText());
        }
        return ids;
    }

    /**
     * Everything {@code p} serves of its configs, as "tenant/group/dataId md5" lines in key order,
     * all namespaces: two nodes with the same list serve the same configs.
     */
    static List<String> configListing(ServerProcess p) throws Exception {
        List<String> lines = new ArrayList<>();
        for (String tenant : namespaces(p)) {
            for (int page = 1; ; page++) {
                JsonNode r = Http.json(p.httpAddress(), CONFIGS + "?" + Http.query(params("search", "blur", "dataId", "*",
                        "group", "*", "tenant", tenant, "pageNo", String.valueOf(page), "pageSize", "500")));
                for (JsonNode c : r.get("pageItems")) {
                    if (!c.get("md5").asText().equals(md5(c.get("content").asText()))) {
                        throw new AssertionError(p + " serves " + c.get("dataId") + " with a wrong md5");
                    }
                    lines.add(tenant + "/" + c.get("group").asText() + "/" + c.get("dataId").asText() + " " + c.get("md5").asText());
                }
                if (page >= r.get("pagesAvailable").asInt()) {
                    break;
                }
            }
        }
        java.util.Collections.sort(lines);
        return lines;
    }

    /** A SHA-256 of {@link #configListing}: equal digests, equal configs. */
    static String configDigest(ServerProcess p) {
        try {
            return sha256(String.join("\n", configListing(p)));
        } catch (Exception e) {
            throw new AssertionError(p + " did not list its configs", e);
        }
    }

    static String md5(String s) {
        return hex("MD5", s, 32);
    }

    static String sha256(String s) {
        return hex("SHA-256", s, 64);
    }

    private static String hex(String algorithm, String s, int width) {
        try {
            byte[] d = MessageDigest.getInstance(algorithm).digest(s.getBytes(StandardCharsets.UTF_8));
            return String.format("%0" + width + "x", new BigInteger(1, d));
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
