package io.lodestar.it;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.WebSocket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;

/**
 * A push-channel client as an application would write one against a cluster: it subscribes all
 * its keys in one message, and after any disconnect reconnects (to the next node in its list, so
 * a node going down moves it elsewhere) and subscribes again with {@code sinceRevision} = the
 * highest revision it has received in a {@code changed} or {@code subscribed} message.
 *
 * <p>It records every {@code changed} notice per key and every breach of the channel's per-key
 * promise (revisions strictly increasing, so nothing delivered twice and nothing out of order),
 * for the test to assert once the run is over. Thread-safe: one thread of its own connects, the
 * WebSocket's thread delivers messages, the test reads under the same lock.
 */
final class ResilientPushListener implements AutoCloseable {
    record Notice(long revision, String md5, boolean deleted, int connection) {}

    private final String name;
    private final Supplier<List<String>> nodes;
    private final List<String> dataIds;
    private final HttpClient http = HttpClient.newHttpClient();
    private final CountDownLatch firstSubscribed = new CountDownLatch(1);
    private final Thread thread;
    private volatile boolean running = true;

    // guarded by this
    private final Map<String, List<Notice>> notices = new HashMap<>();
    private final List<String> violations = new ArrayList<>();
    private final Set<String> nodesUsed = new LinkedHashSet<>();
    private long firstSubscribedRevision = -1;
    private long lastRevision = -1;
    private int connection;
    private int failedConnects;

    /**
     * Starts connecting at once; {@code nodes} gives the HTTP addresses to try, read again at each
     * reconnect (so a container test can hand out current mapped ports).
     */
    ResilientPushListener(String name, Supplier<List<String>> nodes, int firstNode, List<String> dataIds) {
        this.name = name;
        this.nodes = nodes;
        this.dataIds = List.copyOf(dataIds);
        for (String d : dataIds) {
            notices.put(d, new ArrayList<>());
        }
        this.thread = new Thread(() -> run(firstNode), name);
        thread.setDaemon(true);
        thread.start();
    }

    /** Waits for the first {@code subscribed}: from then on every change to the keys reaches this client. */
    long awaitSubscribed(Duration timeout) throws InterruptedException {
        if (!firstSubscribed.await(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
            throw new AssertionError(name + " not subscribed within " + timeout + "; " + summary());
        }
        synchronized (this) {
            return firstSubscribedRevision;
        }
    }

    synchronized long firstSubscribedRevision() {
        return firstSubscribedRevision;
    }

    synchronized List<Notice> notices(String dataId) {
        return List.copyOf(notices.get(dataId));
    }

    /** The revision of the last notice received for the key, -1 if none. */
    synchronized long lastRevision(String dataId) {
        List<Notice> l = notices.get(dataId);
        return l.isEmpty() ? -1 : l.get(l.size() - 1).revision();
    }

    synchronized List<String> violations() {
        return List.copyOf(violations);
    }

    synchronized int connections() {
        return connection;
    }

    synchronized String summary() {
        StringBuilder s = new StringBuilder(name)
                .append(": connections=")
                .append(connection)
                .append(" failedConnects=")
                .append(failedConnects)
                .append(" nodes=")
                .append(nodesUsed)
                .append(" lastRevision=")
                .append(lastRevision);
        notices.forEach((k, l) -> s.append(' ').append(k).append('=').append(l.size()));
        return s.toString();
    }

    private void run(int firstNode) {
        int next = firstNode;
        while (running) {
            List<String> addresses = nodes.get();
            String address = addresses.get(Math.floorMod(next, addresses.size()));
            next++;
            int generation;
            long since;
            synchronized (this) {
                generation = ++connection;
                since = lastRevision;
            }
            CompletableFuture<Void> ended = new CompletableFuture<>();
            WebSocket ws;
            try {
                ws = http.newWebSocketBuilder()
                        .connectTimeout(Duration.ofSeconds(2))
                        .buildAsync(URI.create("ws://" + address + "/lodestar/v1/push"), new Handler(generation, ended))
                        .get(5, TimeUnit.SECONDS);
                StringBuilder keys = new StringBuilder("[");
                for (String d : dataIds) {
                    keys.append(keys.length() == 1 ? "" : ",")
                            .append("{\"dataId\":\"")
                            .append(d)
                            .append("\",\"group\":\"DEFAULT_GROUP\",\"tenant\":\"\"}");
                }
                keys.append(']');
                ws.sendText(
                                "{\"type\":\"subscribe\",\"keys\":" + keys
                                        + (since < 0 ? "" : ",\"sinceRevision\":" + since) + "}",
                                true)
                        .get(5, TimeUnit.SECONDS);
                synchronized (this) {
                    nodesUsed.add(address);
                }
            } catch (Exception e) {
                synchronized (this) {
                    failedConnects++;
                }
                backOff();
                continue;
            }
            while (running && !ended.isDone()) {
                try {
                    ended.get(200, TimeUnit.MILLISECONDS);
                } catch (TimeoutException e) {
                    // still connected
                } catch (Exception e) {
                    break;
                }
            }
            ws.abort();
        }
    }

    private void backOff() {
        // a client's retry pacing, not a wait for a state: the next attempt goes to another node
        try {
            Thread.sleep(100);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private synchronized void handle(int generation, JsonNode m) {
        if (generation != connection) {
            return; // a late message of a connection already given up
        }
        String type = m.path("type").asText();
        switch (type) {
            case "changed" -> {
                String dataId = m.path("dataId").asText();
                long revision = m.path("revision").asLong(-1);
                List<Notice> l = notices.get(dataId);
                if (l == null) {
                    violations.add("notice for a key not subscribed: " + m);
                    return;
                }
                long previous = l.isEmpty()
                        ? firstSubscribedRevision
                        : l.get(l.size() - 1).revision();
                if (revision <= previous) {
                    violations.add(dataId + ": revision " + revision + " after " + previous
                            + " (duplicate or out of order) on connection " + generation);
                }
                l.add(new Notice(
                        revision, m.path("md5").asText(null), m.path("deleted").asBoolean(false), generation));
                lastRevision = Math.max(lastRevision, revision);
            }
            case "subscribed" -> {
                long revision = m.path("revision").asLong(-1);
                if (firstSubscribedRevision < 0) {
                    firstSubscribedRevision = revision;
                    firstSubscribed.countDown();
                }
                lastRevision = Math.max(lastRevision, revision);
            }
            case "pong" -> {}
            default -> violations.add("unexpected message on connection " + generation + ": " + m);
        }
    }

    @Override
    public void close() throws InterruptedException {
        running = false;
        thread.join(10_000);
    }

    private final class Handler implements WebSocket.Listener {
        private final int generation;
        private final CompletableFuture<Void> ended;
        private final StringBuilder partial = new StringBuilder();

        Handler(int generation, CompletableFuture<Void> ended) {
            this.generation = generation;
            this.ended = ended;
        }

        @Override
        public CompletionStage<?> onText(WebSocket ws, CharSequence data, boolean last) {
            partial.append(data);
            if (last) {
                try {
                    handle(generation, Http.JSON.readTree(partial.toString()));
                } catch (Exception e) {
                    synchronized (ResilientPushListener.this) {
                        violations.add("unreadable message: " + partial);
                    }
                }
                partial.setLength(0);
            }
            ws.request(1);
            return null;
        }

        @Override
        public CompletionStage<?> onClose(WebSocket ws, int statusCode, String reason) {
            ended.complete(null);
            return null;
        }

        @Override
        public void onError(WebSocket ws, Throwable error) {
            ended.complete(null);
        }
    }
}
