package io.lodestar.it;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;

/**
 * Client threads publishing distinct configs (dataId {@code prefix-t<thread>-<n>}, each written
 * once) to the nodes a supplier names, round robin, and keeping the log of what happened to each:
 * acknowledged (200 {@code true}), failed with a status, or lost in transport. Only acknowledged
 * publishes must survive; the others may or may not have been applied (unless a 503 says nothing
 * was written).
 */
final class PublishLoad implements AutoCloseable {
    /** One publish: where it went, when it was sent and answered (System.nanoTime), and how. */
    record Outcome(
            String dataId,
            String content,
            ServerProcess target,
            long invokedNanos,
            long completedNanos,
            int status,
            String body) {
        boolean acknowledged() {
            return status == 200 && "true".equals(body);
        }
    }

    /** A status for publishes that got no HTTP answer (connection refused, reset, client timeout). */
    static final int NO_ANSWER = -1;

    private final String prefix;
    private final int threads;
    private final Supplier<List<ServerProcess>> targets;
    private final Duration requestTimeout;
    private final AtomicBoolean running = new AtomicBoolean();
    private final ConcurrentLinkedQueue<Outcome> outcomes = new ConcurrentLinkedQueue<>();
    private final Map<String, String> acknowledged = new ConcurrentHashMap<>();
    private final List<Thread> workers = new ArrayList<>();

    PublishLoad(String prefix, int threads, Supplier<List<ServerProcess>> targets) {
        this(prefix, threads, targets, Duration.ofSeconds(15));
    }

    PublishLoad(String prefix, int threads, Supplier<List<ServerProcess>> targets, Duration requestTimeout) {
        this.prefix = prefix;
        this.threads = threads;
        this.targets = targets;
        this.requestTimeout = requestTimeout;
    }

    PublishLoad start() {
        running.set(true);
        for (int t = 0; t < threads; t++) {
            int thread = t;
            Thread worker = new Thread(() -> run(thread), prefix + "-writer-" + t);
            worker.setDaemon(true);
            worker.start();
            workers.add(worker);
        }
        return this;
    }

    private void run(int thread) {
        for (long n = 0; running.get(); n++) {
            List<ServerProcess> live =
                    targets.get().stream().filter(ServerProcess::alive).toList();
            if (live.isEmpty()) {
                pause();
                continue;
            }
            ServerProcess target = live.get((int) ((n + thread) % live.size()));
            String dataId = prefix + "-t" + thread + "-" + n;
            String content = "content of " + dataId + " via " + target.name;
            long invoked = System.nanoTime();
            int status;
            String body;
            try {
                Http.Response r = Http.postForm(
                        target.httpAddress(),
                        ConfigApi.CONFIGS,
                        Http.params("dataId", dataId, "group", ConfigApi.GROUP, "content", content),
                        requestTimeout);
                status = r.status();
                body = r.body();
            } catch (Exception e) {
                status = NO_ANSWER;
                body = e.toString();
            }
            Outcome o = new Outcome(dataId, content, target, invoked, System.nanoTime(), status, body);
            outcomes.add(o);
            if (o.acknowledged()) {
                acknowledged.put(dataId, content);
            } else if (status == NO_ANSWER) {
                pause(); // a node starting or just killed refuses connections at once: do not spin on it
            }
        }
    }

    /** Pacing while a target is down, not synchronisation. */
    private static void pause() {
        try {
            Thread.sleep(20);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** dataId -> content of every acknowledged publish so far. */
    Map<String, String> acknowledged() {
        return new TreeMap<>(acknowledged);
    }

    int acknowledgedCount() {
        return acknowledged.size();
    }

    List<Outcome> outcomes() {
        return new ArrayList<>(outcomes);
    }

    /** The earliest acknowledged publish sent at or after {@code nanos}, or null. */
    Outcome firstAcknowledgedSentAfter(long nanos) {
        Outcome first = null;
        for (Outcome o : outcomes) {
            if (o.acknowledged()
                    && o.invokedNanos() >= nanos
                    && (first == null || o.completedNanos() < first.completedNanos())) {
                first = o;
            }
        }
        return first;
    }

    /**
     * The publishes sent at or after {@code sinceNanos}, in sending order, one line each (target,
     * sent and answered in ms since then, status, the start of the body), at most {@code max}: what
     * a failed timing assertion shows, so a slow failover can be told apart from a slow client.
     */
    String timeline(long sinceNanos, int max) {
        StringBuilder out = new StringBuilder();
        outcomes().stream()
                .filter(o -> o.invokedNanos() >= sinceNanos)
                .sorted(java.util.Comparator.comparingLong(Outcome::invokedNanos))
                .limit(max)
                .forEach(o -> {
                    String body = o.body() == null ? "" : o.body().replace('\n', ' ');
                    out.append(String.format(
                            "%n  +%d ms -> %s: %d in %d ms: %s",
                            (o.invokedNanos() - sinceNanos) / 1_000_000,
                            o.target().name,
                            o.status(),
                            (o.completedNanos() - o.invokedNanos()) / 1_000_000,
                            body.length() > 120 ? body.substring(0, 120) + "..." : body));
                });
        return out.toString();
    }

    /** Counts of outcomes by status, e.g. {200=812, 503=4, -1=2}. */
    Map<Integer, Integer> statusCounts() {
        return statusCounts(outcomes());
    }

    static Map<Integer, Integer> statusCounts(List<Outcome> outcomes) {
        Map<Integer, Integer> counts = new TreeMap<>();
        for (Outcome o : outcomes) {
            counts.merge(o.status(), 1, Integer::sum);
        }
        return counts;
    }

    /** Stops the threads after their current publish. */
    @Override
    public void close() throws InterruptedException {
        running.set(false);
        for (Thread t : workers) {
            t.join(requestTimeout.toMillis() + 5_000);
        }
        workers.clear();
    }
}
