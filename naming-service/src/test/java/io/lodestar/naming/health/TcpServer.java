package io.lodestar.naming.health;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A real listening socket on 127.0.0.1 that accepts and closes connections, counting them; it
 * can stop listening and listen again on the same port.
 */
final class TcpServer implements AutoCloseable {
    private final AtomicInteger accepted = new AtomicInteger();
    private volatile ServerSocket socket;
    private volatile Thread acceptor;
    private final int port;

    TcpServer() throws IOException {
        this(0);
    }

    private TcpServer(int port) throws IOException {
        this.socket = listen(port);
        this.port = socket.getLocalPort();
    }

    int port() {
        return port;
    }

    int accepted() {
        return accepted.get();
    }

    /** Stops listening: connects are refused once this returns. */
    void stop() throws IOException {
        socket.close();
        // the kernel keeps listening until the thread blocked in accept() has left it
        try {
            acceptor.join(10_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Listens on the same port again. */
    void restart() throws IOException {
        socket = listen(port);
    }

    private ServerSocket listen(int onPort) throws IOException {
        ServerSocket s = new ServerSocket();
        s.setReuseAddress(true); // our own probes' closed connections may linger in TIME_WAIT
        s.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), onPort));
        Thread t = new Thread(() -> acceptUntilClosed(s), "test-tcp-server-" + s.getLocalPort());
        t.setDaemon(true);
        acceptor = t;
        t.start();
        return s;
    }

    private void acceptUntilClosed(ServerSocket s) {
        while (!s.isClosed()) {
            try (Socket c = s.accept()) {
                accepted.incrementAndGet();
            } catch (IOException e) {
                // closed: the loop ends
            }
        }
    }

    @Override
    public void close() throws IOException {
        stop();
    }
}
