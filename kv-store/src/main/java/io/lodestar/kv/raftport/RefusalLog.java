package io.lodestar.kv.raftport;

import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Logs refused connections at most once every ten seconds, with a count of the rest: anyone who
 * reaches the port can cause a refusal, and must not be able to flood the log with them.
 */
final class RefusalLog {
    private static final Logger LOG = LoggerFactory.getLogger(RefusalLog.class);
    private static final long INTERVAL_NANOS = 10_000_000_000L;

    private final AtomicLong nextLine = new AtomicLong(System.nanoTime());
    private final AtomicLong unlogged = new AtomicLong();

    void refused(String remote, String reason) {
        long now = System.nanoTime();
        long next = nextLine.get();
        if (now - next >= 0 && nextLine.compareAndSet(next, now + INTERVAL_NANOS)) {
            long others = unlogged.getAndSet(0);
            LOG.warn(
                    "Raft port: refused {}: {}{}",
                    remote,
                    reason,
                    others == 0 ? "" : " (and " + others + " other refusals since the last line)");
        } else {
            unlogged.incrementAndGet();
        }
    }
}
