package io.lodestar.it;

import io.lodestar.kv.testing.FreePorts;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A TCP relay on a loopback port of its own to a server's port, which a test can {@link #cut}
 * (every relayed connection closed, new ones refused) and {@link #heal} (accepting again on the
 * same port): a client's link to a server lost and back, while the server itself keeps running
 * and taking writes from others. Threads are daemons, one pair per relayed connection.
 */
final class TcpProxy implements AutoCloseable {
    final int port = FreePorts.next();
    private final int target;
    private final Set<Socket> open = ConcurrentHashMap.newKeySet();
    private volatile ServerSocket listener;

    private TcpProxy(int target) {
        this.target = target;
    }

    static TcpProxy to(int targetPort) throws IOException {
        TcpProxy proxy = new TcpProxy(targetPort);
        proxy.heal();
        return proxy;
    }

    String address() {
        return "127.0.0.1:" + port;
    }

    synchronized void heal() throws IOException {
        ServerSocket s = new ServerSocket();
        s.setReuseAddress(true);
        s.bind(new InetSocketAddress("127.0.0.1", port));
        listener = s;
        daemon("proxy accept " + port, () -> {
            while (!s.isClosed()) {
                try {
                    Socket in = s.accept();
                    Socket out;
                    try {
                        out = new Socket("127.0.0.1", target);
                    } catch (IOException e) {
                        in.close(); // the server is down: so is the relayed connection
                        continue;
                    }
                    open.add(in);
                    open.add(out);
                    daemon("proxy up", () -> pump(in, out));
                    daemon("proxy down", () -> pump(out, in));
                } catch (IOException e) {
                    // closed by cut, or the server is down: the client sees its connection end
                }
            }
        });
    }

    synchronized void cut() throws IOException {
        listener.close();
        for (Socket s : open) {
            s.close();
        }
        open.clear();
    }

    @Override
    public void close() throws IOException {
        cut();
    }

    private void pump(Socket from, Socket to) {
        try (InputStream in = from.getInputStream();
                OutputStream out = to.getOutputStream()) {
            in.transferTo(out);
        } catch (IOException e) {
            // either side closed
        } finally {
            try {
                from.close();
                to.close();
            } catch (IOException e) {
                // already closed
            }
        }
    }

    private static void daemon(String name, Runnable r) {
        Thread t = new Thread(r, name);
        t.setDaemon(true);
        t.start();
    }
}
