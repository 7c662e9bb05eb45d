package io.lodestar.naming.health;

import io.lodestar.error.Failures;
import java.io.IOException;
import java.io.InputStream;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Healthy when {@code GET http://host:port/path} answers a status the settings expect (any 2xx
 * unless configured) within the timeout; the body is not read. Redirects are not followed (a 3xx
 * is just a status), no proxy is used, HTTP/1.1 only (no h2c upgrade that some servers reject).
 * The URL names the address probed, not a host name, so the request goes where the scope check
 * looked and its {@code Host} header carries that address.
 *
 * <p>Runs on one {@link HttpClient}: its selector thread ({@code HttpClient-N-SelectorManager},
 * named by the JDK) does the I/O for every probe in flight and one thread of ours, {@value
 * #THREAD_NAME}, completes them. The client is built on the first probe, not at start-up: building
 * one loads the JDK's TLS stack, which slows start-up noticeably, and most registries never
 * configure an HTTP check.
 */
public final class HttpProbe implements Probe {
    static final String THREAD_NAME = "health-probe-http";
    static final String USER_AGENT = "Lodestar-HealthCheck";
    /** Extra time before our own timer gives up on a request the client's timeout did not end. */
    private static final Duration BACKSTOP_GRACE = Duration.ofSeconds(1);

    private final ExecutorService executor;
    private volatile HttpClient client;
    private volatile boolean closed;

    public HttpProbe() {
        this.executor = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, THREAD_NAME);
            t.setDaemon(true);
            return t;
        });
    }

    private HttpClient client() {
        HttpClient c = client;
        if (c == null) {
            synchronized (this) {
                c = client;
                if (c == null) {
                    c = HttpClient.newBuilder()
                            .executor(executor)
                            .version(HttpClient.Version.HTTP_1_1)
                            .followRedirects(HttpClient.Redirect.NEVER)
                            .proxy(HttpClient.Builder.NO_PROXY)
                            .build();
                    client = c;
                }
            }
        }
        return c;
    }

    @Override
    public CompletableFuture<ProbeResult> probe(InetSocketAddress target, ProbeSettings settings) {
        if (closed) {
            return CompletableFuture.completedFuture(ProbeResult.unknown("probe closed"));
        }
        if (target.isUnresolved()) {
            throw new IllegalArgumentException("not resolved: " + target); // the caller resolves, see Probe
        }
        String host = target.getAddress().getHostAddress();
        URI uri;
        try {
            uri = uri(host, target.getPort(), settings.path());
        } catch (URISyntaxException e) {
            return CompletableFuture.completedFuture(ProbeResult.down(
                    "no valid URL for " + host + ":" + target.getPort() + settings.path() + ": " + e.getMessage()));
        }
        Duration timeout = settings.timeout();
        HttpRequest request = HttpRequest.newBuilder(uri)
                .GET()
                .timeout(timeout)
                .header("User-Agent", USER_AGENT)
                .build();
        try {
            return client().sendAsync(request, HttpResponse.BodyHandlers.ofInputStream())
                    // the client's timeout covers connect and headers; this also bounds the rare case it misses
                    .orTimeout(timeout.plus(BACKSTOP_GRACE).toMillis(), TimeUnit.MILLISECONDS)
                    .handle((response, error) -> error == null ? judge(response, settings) : failed(error, timeout));
        } catch (RejectedExecutionException e) {
            return CompletableFuture.completedFuture(ProbeResult.unknown("probe closed"));
        }
    }

    /** The URL probed; IPv6 literals get their brackets, the path may carry a query. */
    static URI uri(String host, int port, String pathAndQuery) throws URISyntaxException {
        int q = pathAndQuery.indexOf('?');
        String path = q < 0 ? pathAndQuery : pathAndQuery.substring(0, q);
        String query = q < 0 ? null : pathAndQuery.substring(q + 1);
        return new URI("http", null, host, port, path, query, null);
    }

    private static ProbeResult judge(HttpResponse<InputStream> response, ProbeSettings settings) {
        try {
            // the status is all we need: closing now drops the body (and the connection) unread
            response.body().close();
        } catch (IOException e) {
            // nothing to do: the status already arrived
        }
        int status = response.statusCode();
        return settings.expects(status) ? ProbeResult.up("HTTP " + status) : ProbeResult.down("HTTP " + status);
    }

    private ProbeResult failed(Throwable error, Duration timeout) {
        Throwable cause = Failures.cause(error);
        if (closed || cause instanceof RejectedExecutionException) {
            return ProbeResult.unknown("probe closed");
        }
        if (cause instanceof HttpTimeoutException || cause instanceof TimeoutException) {
            return ProbeResult.down("timed out after " + timeout.toMillis() + " ms");
        }
        if (cause instanceof ConnectException) {
            return ProbeResult.down("connect failed: " + cause.getMessage());
        }
        return ProbeResult.down(cause.getClass().getSimpleName() + ": " + cause.getMessage());
    }

    /** Stops our completion thread; probes in flight complete UNKNOWN. Idempotent. */
    @Override
    public void close() {
        closed = true;
        // JDK 17's HttpClient has no close(): its selector thread ends once the client is unreachable
        executor.shutdownNow();
    }
}
