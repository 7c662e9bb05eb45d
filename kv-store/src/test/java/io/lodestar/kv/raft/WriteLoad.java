package io.lodestar.kv.raft;

import static io.lodestar.kv.raft.TestCluster.KS;
import static io.lodestar.kv.raft.TestCluster.bytes;

import io.lodestar.kv.KvException;
import io.lodestar.kv.NoLeaderException;
import io.lodestar.kv.StoreUnavailableException;
import io.lodestar.kv.command.Command;
import io.lodestar.kv.command.WriteResult;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Client threads that each write unique keys, one at a time, round-robin through the running
 * nodes, and record every outcome: the history a test checks the replicas against.
 */
final class WriteLoad implements AutoCloseable {
    /** How a write ended, as the client saw it. */
    enum Outcome {
        ACKNOWLEDGED,
        NOT_COMMITTED,
        UNKNOWN,
        HUNG,
        OTHER
    }

    record Write(
            String key,
            String value,
            Outcome outcome,
            long revision,
            Throwable error,
            long startedNanos,
            long endedNanos) {}

    private final TestCluster cluster;
    private final long hangAfterMs;
    private final List<Thread> threads = new ArrayList<>();
    private final Map<String, Write> history = new ConcurrentHashMap<>();
    private final AtomicInteger acknowledged = new AtomicInteger();
    private final AtomicLong lastAckStartedNanos = new AtomicLong();
    private volatile boolean stopped;

    /** {@code hangAfterMs}: a write with no outcome after this long is recorded as HUNG. */
    WriteLoad(TestCluster cluster, int clients, long hangAfterMs) {
        this.cluster = cluster;
        this.hangAfterMs = hangAfterMs;
        for (int t = 0; t < clients; t++) {
            int client = t;
            Thread thread = new Thread(() -> run(client), "write-load-" + t);
            thread.setDaemon(true);
            threads.add(thread);
        }
    }

    WriteLoad start() {
        threads.forEach(Thread::start);
        return this;
    }

    private void run(int client) {
        for (int n = 0; !stopped; n++) {
            RaftKvStore node = cluster.node((client + n) % cluster.size());
            if (node == null) {
                continue;
            }
            String key = "c" + client + "-" + n;
            String value = "v" + client + "-" + n + "-" + System.nanoTime();
            long started = System.nanoTime();
            CompletableFuture<WriteResult> future;
            try {
                future = node.write(Command.put(KS, bytes(key), bytes(value)));
            } catch (RuntimeException e) {
                history.put(key, new Write(key, value, Outcome.OTHER, 0, e, started, System.nanoTime()));
                continue;
            }
            Write w;
            try {
                WriteResult r = future.get(hangAfterMs, TimeUnit.MILLISECONDS);
                w = new Write(key, value, Outcome.ACKNOWLEDGED, r.revision(), null, started, System.nanoTime());
                acknowledged.incrementAndGet();
                lastAckStartedNanos.accumulateAndGet(started, Math::max);
            } catch (ExecutionException e) {
                w = new Write(key, value, classify(e.getCause()), 0, e.getCause(), started, System.nanoTime());
            } catch (TimeoutException e) {
                w = new Write(key, value, Outcome.HUNG, 0, e, started, System.nanoTime());
            } catch (InterruptedException e) {
                return;
            }
            history.put(key, w);
        }
    }

    private static Outcome classify(Throwable error) {
        if (error instanceof NoLeaderException || error instanceof StoreUnavailableException) {
            return Outcome.NOT_COMMITTED;
        }
        if (error instanceof KvException kv && kv.outcomeUnknown()) {
            return Outcome.UNKNOWN;
        }
        return Outcome.OTHER;
    }

    int acknowledged() {
        return acknowledged.get();
    }

    /** When the most recently started write that was acknowledged started (System.nanoTime). */
    long lastAcknowledgedStart() {
        return lastAckStartedNanos.get();
    }

    /** Outcome counts and a sample error of each kind, for failure messages. */
    String summary() {
        StringBuilder out = new StringBuilder();
        for (Outcome o : Outcome.values()) {
            List<Write> ws = with(o);
            out.append(o).append('=').append(ws.size());
            ws.stream()
                    .filter(w -> w.error() != null)
                    .findFirst()
                    .ifPresent(w -> out.append(" (e.g. ").append(w.error()).append(')'));
            out.append("; ");
        }
        return out.toString();
    }

    List<Write> history() {
        return List.copyOf(history.values());
    }

    List<Write> with(Outcome outcome) {
        return history.values().stream().filter(w -> w.outcome() == outcome).toList();
    }

    /** Stops the clients and waits for their last writes to end. */
    @Override
    public void close() throws InterruptedException {
        stopped = true;
        for (Thread t : threads) {
            t.join(hangAfterMs + 5000);
        }
    }
}
