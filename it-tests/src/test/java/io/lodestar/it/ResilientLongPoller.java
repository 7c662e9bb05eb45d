package io.lodestar.it;

import java.io.IOException;
import java.math.BigInteger;
import java.net.URI;
import java.net.URLDecoder;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;

/**
 * A config listener speaking the long-poll wire exactly as nacos-client 1.x does, against a list
 * of nodes: {@code POST /nacos/v1/cs/configs/listener} with {@code Listening-Configs} (the md5 of
 * what it holds, {@code ""} for nothing) and {@code Long-Pulling-Timeout: 30000} (plus
 * {@code Long-Pulling-Timeout-No-Hangup: true} on its first poll), re-armed after each answer;
 * after an answer naming keys it {@code GET}s each one from the same node and keeps that content.
 * On any failure (connection refused or reset, timeout, non-200) it moves to the next node, as the
 * 1.x client's server list does.
 *
 * <p>The wire carries no revisions, so the client cannot tell a duplicate wake-up from a new one;
 * it records what it saw for the test. Thread-safe: its own thread polls; readers take the lock.
 */
final class ResilientLongPoller implements AutoCloseable {
    private static final String A = "\u0001";
    private static final String B = "\u0002";

    private final String name;
    private final Supplier<List<String>> nodes;
    private final List<String> dataIds;
    /** HTTP/1.1 so a held poll has its own connection, as the 1.x client's have. */
    private final HttpClient http = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(2))
            .build();

    private final Thread thread;
    private volatile boolean running = true;

    // guarded by this
    private final Map<String, String> content = new HashMap<>();
    private final Map<String, List<String>> seen = new HashMap<>();
    private final Set<String> nodesUsed = new LinkedHashSet<>();
    private int polls;
    private int wakeUps;
    private int failures;

    ResilientLongPoller(String name, Supplier<List<String>> nodes, int firstNode, List<String> dataIds) {
        this.name = name;
        this.nodes = nodes;
        this.dataIds = List.copyOf(dataIds);
        for (String d : dataIds) {
            seen.put(d, new ArrayList<>());
        }
        this.thread = new Thread(() -> run(firstNode), name);
        thread.setDaemon(true);
        thread.start();
    }

    /** The content held for the key, null for none. */
    synchronized String content(String dataId) {
        return content.get(dataId);
    }

    /** Every content this client fetched for the key after a wake-up, in order. */
    synchronized List<String> seen(String dataId) {
        return List.copyOf(seen.get(dataId));
    }

    synchronized int polls() {
        return polls;
    }

    synchronized String summary() {
        StringBuilder s = new StringBuilder(name)
                .append(": polls=")
                .append(polls)
                .append(" wakeUps=")
                .append(wakeUps)
                .append(" failures=")
                .append(failures)
                .append(" nodes=")
                .append(nodesUsed);
        seen.forEach((k, l) -> s.append(' ').append(k).append('=').append(l.size()));
        return s.toString();
    }

    static String md5(String s) {
        if (s == null) {
            return "";
        }
        try {
            return String.format(
                    "%032x",
                    new BigInteger(1, MessageDigest.getInstance("MD5").digest(s.getBytes(StandardCharsets.UTF_8))));
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /** The {@code Listening-Configs} value for the given contents (null = nothing held). */
    static String listening(List<String> dataIds, Map<String, String> contents) {
        StringBuilder s = new StringBuilder();
        for (String d : dataIds) {
            s.append(d)
                    .append(B)
                    .append("DEFAULT_GROUP")
                    .append(B)
                    .append(md5(contents.get(d)))
                    .append(A);
        }
        return s.toString();
    }

    /** A poll request to {@code address}; {@code timeout} null for a poll that must answer at once. */
    static HttpRequest poll(String address, String listening, boolean noHangup, Duration requestTimeout) {
        HttpRequest.Builder b = HttpRequest.newBuilder(
                        URI.create("http://" + address + "/nacos/v1/cs/configs/listener"))
                .timeout(requestTimeout)
                .header("Content-Type", "application/x-www-form-urlencoded;charset=UTF-8")
                .header("Long-Pulling-Timeout", "30000")
                .POST(HttpRequest.BodyPublishers.ofString(
                        "Listening-Configs=" + URLEncoder.encode(listening, StandardCharsets.UTF_8)));
        if (noHangup) {
            b.header("Long-Pulling-Timeout-No-Hangup", "true");
        }
        return b.build();
    }

    /** The dataIds named in a poll's answer. */
    static List<String> changedDataIds(String body) {
        List<String> out = new ArrayList<>();
        for (String entry :
                URLDecoder.decode(body.trim(), StandardCharsets.UTF_8).split(A)) {
            if (!entry.isBlank()) {
                out.add(entry.split(B)[0]);
            }
        }
        return out;
    }

    private void run(int firstNode) {
        int node = firstNode;
        boolean first = true;
        while (running) {
            List<String> addresses = nodes.get();
            String address = addresses.get(Math.floorMod(node, addresses.size()));
            try {
                String listening;
                synchronized (this) {
                    listening = listening(dataIds, content);
                    polls++;
                }
                HttpResponse<String> answer = http.send(
                        poll(address, listening, first, Duration.ofSeconds(40)), HttpResponse.BodyHandlers.ofString());
                if (answer.statusCode() != 200) {
                    throw new IOException("listener answered " + answer.statusCode() + ": " + answer.body());
                }
                first = false;
                synchronized (this) {
                    nodesUsed.add(address);
                }
                List<String> changed = changedDataIds(answer.body());
                if (!changed.isEmpty()) {
                    synchronized (this) {
                        wakeUps++;
                    }
                }
                for (String dataId : changed) {
                    Http.Response r = Http.get(
                            address,
                            "/nacos/v1/cs/configs?"
                                    + Http.query(Http.params("dataId", dataId, "group", "DEFAULT_GROUP")));
                    if (r.status() != 200 && r.status() != 404) {
                        throw new IOException("GET " + dataId + " answered " + r.status());
                    }
                    String got = r.status() == 200 ? r.body() : null;
                    synchronized (this) {
                        content.put(dataId, got);
                        seen.get(dataId).add(got);
                    }
                }
            } catch (IOException e) {
                synchronized (this) {
                    failures++;
                }
                node++;
                backOff();
            } catch (InterruptedException e) {
                return; // closing
            }
        }
    }

    private void backOff() {
        // the client's retry pacing, not a wait for a state: the next poll goes to another node
        try {
            Thread.sleep(100);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void close() throws InterruptedException {
        running = false;
        thread.interrupt();
        thread.join(10_000);
    }
}
