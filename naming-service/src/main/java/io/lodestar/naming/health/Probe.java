package io.lodestar.naming.health;

import java.net.InetSocketAddress;
import java.util.concurrent.CompletableFuture;

/**
 * One way of probing an address (TCP connect, HTTP GET). An implementation probes many targets
 * at once on one or two threads of its own: no thread waits on a target.
 *
 * <p>The address is resolved by the caller ({@link HealthChecker}, which also decides whether it
 * may be dialled at all): a probe connects to exactly that address and never looks a name up.
 *
 * <p>Threading: {@link #probe} may be called from any thread and returns at once. The future
 * always completes, within about {@code settings.timeout()}, with a result, never exceptionally (a
 * refused connection is a {@link ProbeResult#down} result; a failure on the prober's side is
 * {@link ProbeResult#unknown}), on one of the probe's own threads or the caller's: dependent
 * stages must not block. After {@link #close()} probes complete UNKNOWN at once.
 */
public interface Probe extends AutoCloseable {

    /** Probes {@code target} (resolved) as {@code settings} say (timeout; HTTP path and expected statuses). */
    CompletableFuture<ProbeResult> probe(InetSocketAddress target, ProbeSettings settings);

    /** Stops the probe's threads; probes in flight complete UNKNOWN. Idempotent. */
    @Override
    void close();
}
