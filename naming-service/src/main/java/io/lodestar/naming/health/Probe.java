package io.lodestar.naming.health;

import java.util.concurrent.CompletableFuture;

/**
 * One way of probing an address (TCP connect, HTTP GET). An implementation probes many targets
 * at once on one or two threads of its own: no thread waits on a target.
 *
 * <p>Threading: {@link #probe} may be called from any thread. For an IP literal it returns at
 * once; for a host name it may block while the name is resolved, so callers start those probes
 * on a thread that may wait ({@link HealthChecker} does). The future always completes, within
 * about {@code settings.timeout()}, with a result, never exceptionally (a refused connection or
 * an unknown host is a {@link ProbeResult#down} result; a failure on the prober's side is
 * {@link ProbeResult#unknown}), on one of the probe's own threads or the caller's: dependent
 * stages must not block. After {@link #close()} probes complete UNKNOWN at once.
 */
public interface Probe extends AutoCloseable {

    /** Probes {@code host:port} as {@code settings} say (timeout; HTTP path and expected statuses). */
    CompletableFuture<ProbeResult> probe(String host, int port, ProbeSettings settings);

    /** Stops the probe's threads; probes in flight complete UNKNOWN. Idempotent. */
    @Override
    void close();
}
