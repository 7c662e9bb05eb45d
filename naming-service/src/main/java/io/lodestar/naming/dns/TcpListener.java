package io.lodestar.naming.dns;

import java.io.BufferedInputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Accepts DNS-over-TCP connections (RFC 7766) and serves each on a bounded pool: every message
 * is preceded by its two-byte length; a connection may carry any number of queries, answered in
 * order, until the client closes it or sends nothing for the idle timeout.
 *
 * <p>Bounded: {@code pool}'s threads serve one connection each, its queue holds the accepted
 * ones waiting; a connection accepted when both are full is closed at once (the client retries
 * or gives up, as with a busy server). Each exchange (waiting for a query, reading it, writing
 * the answer) must end within the idle timeout or {@code deadlines} closes the connection, so a
 * client that sends slowly, or never reads its answers, holds a thread that long at most. A
 * malformed message is answered FORMERR; one that cannot even be framed ends its connection.
 * Nothing a client sends stops the acceptor.
 */
final class TcpListener implements Runnable {
    private static final Logger LOG = LoggerFactory.getLogger(TcpListener.class);

    private final ServerSocket serverSocket;
    private final PacketHandler handler;
    private final ThreadPoolExecutor pool;
    private final ScheduledExecutorService deadlines;
    private final int idleTimeoutMs;
    private final Set<Socket> open = ConcurrentHashMap.newKeySet();

    TcpListener(
            ServerSocket serverSocket,
            PacketHandler handler,
            ThreadPoolExecutor pool,
            ScheduledExecutorService deadlines,
            Duration idleTimeout) {
        this.serverSocket = serverSocket;
        this.handler = handler;
        this.pool = pool;
        this.deadlines = deadlines;
        this.idleTimeoutMs = (int) Math.min(Integer.MAX_VALUE, idleTimeout.toMillis());
    }

    @Override
    public void run() {
        while (!serverSocket.isClosed()) {
            Socket socket;
            try {
                socket = serverSocket.accept();
            } catch (IOException e) {
                if (!serverSocket.isClosed()) {
                    LOG.warn("accepting a DNS TCP connection failed", e);
                }
                continue;
            }
            open.add(socket); // from now on, so closing the server also closes the queued ones
            try {
                pool.execute(() -> serve(socket));
            } catch (RejectedExecutionException e) {
                LOG.debug("DNS TCP busy: closing the connection from {}", socket.getRemoteSocketAddress());
                open.remove(socket);
                closeQuietly(socket);
            }
        }
    }

    private void serve(Socket socket) {
        ScheduledFuture<?> deadline = null;
        try (socket) {
            socket.setSoTimeout(idleTimeoutMs);
            socket.setTcpNoDelay(true);
            DataInputStream in = new DataInputStream(new BufferedInputStream(socket.getInputStream()));
            DataOutputStream out = new DataOutputStream(socket.getOutputStream());
            byte[] buffer = new byte[PacketHandler.TCP_MAX];
            while (true) {
                // a read timeout alone would let a client drip a byte at a time, and writes have none
                deadline = deadlines.schedule(() -> closeQuietly(socket), idleTimeoutMs, TimeUnit.MILLISECONDS);
                int length = in.readUnsignedShort();
                in.readFully(buffer, 0, length);
                byte[] answer = handler.respond(buffer, length, false);
                if (answer != null && answer.length > 0) {
                    out.writeShort(answer.length);
                    out.write(answer);
                    out.flush();
                }
                deadline.cancel(false);
            }
        } catch (EOFException | SocketTimeoutException e) {
            // the client is done, or idle: an ordinary end
        } catch (IOException e) {
            LOG.debug("DNS TCP connection from {} ended: {}", socket.getRemoteSocketAddress(), e.toString());
        } catch (RejectedExecutionException e) {
            // no deadline could be set: the server is closing
        } catch (RuntimeException e) {
            LOG.warn("serving a DNS TCP connection failed", e);
        } finally {
            if (deadline != null) {
                deadline.cancel(false);
            }
            open.remove(socket);
        }
    }

    /** Closes the connections served and queued (the pool's threads then end their loops). */
    void closeConnections() {
        open.forEach(TcpListener::closeQuietly);
    }

    private static void closeQuietly(Socket socket) {
        try {
            socket.close();
        } catch (IOException e) {
            // closing anyway
        }
    }
}
