package io.lodestar.naming.health;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A real HTTP server on 127.0.0.1 answering {@code /health} with statuses from a script that
 * repeats (e.g. 500, 500, 200, 500, 500, 200, ...), counting the requests it answered.
 */
final class ScriptedHttpServer implements AutoCloseable {
    private final HttpServer server;
    private final AtomicInteger requests = new AtomicInteger();
    private final AtomicReference<List<Integer>> script = new AtomicReference<>(List.of(200));
    private final AtomicInteger position = new AtomicInteger();
    private volatile long delayMs;

    ScriptedHttpServer() throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/health", exchange -> {
            List<Integer> s = script.get();
            int status = s.get(Math.floorMod(position.getAndIncrement(), s.size()));
            if (delayMs > 0) {
                try {
                    Thread.sleep(delayMs); // the slow instance under test, not a synchronisation
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            byte[] body = ("status " + status).getBytes();
            exchange.sendResponseHeaders(status, body.length);
            exchange.getResponseBody().write(body);
            exchange.close();
            requests.incrementAndGet();
        });
        server.start();
    }

    int port() {
        return server.getAddress().getPort();
    }

    /** Answers from now on with {@code statuses}, in a loop, from its first. */
    void answer(Integer... statuses) {
        script.set(List.of(statuses));
        position.set(0);
    }

    void delay(long ms) {
        delayMs = ms;
    }

    /** Requests answered so far. */
    int requests() {
        return requests.get();
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
