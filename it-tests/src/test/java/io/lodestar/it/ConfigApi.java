package io.lodestar.it;

import static io.lodestar.it.Http.params;

import com.fasterxml.jackson.databind.JsonNode;
import io.lodestar.kv.testing.Await;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The config API as one node answers it: publish and read in the public namespace's
 * {@link #GROUP}, everything it serves (pages checked against their md5s), a digest of that to
 * compare nodes. Who leads and how far each node got is {@link LodestarCluster}'s.
 */
final class ConfigApi {
    static final String CONFIGS = "/nacos/v1/cs/configs";
    static final String GROUP = "DEFAULT_GROUP";

    private ConfigApi() {}

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
            JsonNode r = Http.json(
                    p.httpAddress(),
                    CONFIGS + "?"
                            + Http.query(params(
                                    "search",
                                    "blur",
                                    "dataId",
                                    "*",
                                    "group",
                                    GROUP,
                                    "pageNo",
                                    String.valueOf(page),
                                    "pageSize",
                                    "500")));
            for (JsonNode c : r.get("pageItems")) {
                String content = c.get("content").asText();
                if (!c.get("md5").asText().equals(md5(content))) {
                    throw new AssertionError(
                            p + " serves " + c.get("dataId") + " with an md5 that is not its content's");
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

    /** The ids of every namespace {@code p} knows, public ("") first. */
    static List<String> namespaces(ServerProcess p) throws Exception {
        List<String> ids = new ArrayList<>();
        for (JsonNode ns :
                Http.json(p.httpAddress(), "/nacos/v1/console/namespaces").get("data")) {
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
                JsonNode r = Http.json(
                        p.httpAddress(),
                        CONFIGS + "?"
                                + Http.query(params(
                                        "search",
                                        "blur",
                                        "dataId",
                                        "*",
                                        "group",
                                        "*",
                                        "tenant",
                                        tenant,
                                        "pageNo",
                                        String.valueOf(page),
                                        "pageSize",
                                        "500")));
                for (JsonNode c : r.get("pageItems")) {
                    if (!c.get("md5").asText().equals(md5(c.get("content").asText()))) {
                        throw new AssertionError(p + " serves " + c.get("dataId") + " with a wrong md5");
                    }
                    lines.add(tenant + "/" + c.get("group").asText() + "/"
                            + c.get("dataId").asText() + " " + c.get("md5").asText());
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
