package io.lodestar.naming.dns;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Serves DNS over TCP (RFC 7766) on one thread with a selector: every message is preceded by its
 * two-byte length; a connection may carry any number of queries, answered in order, until the
 * client closes it or an exchange takes longer than the idle timeout.
 *
 * <p>A client that connects and sends slowly, or never reads its answers, holds only its
 * connection's buffers, never a thread: answering is a lookup in memory, done on this thread. Each
 * exchange (waiting for a query, reading it, writing the answer) must end within the idle timeout
 * or the connection is closed, so a client cannot keep one open by dripping bytes. At most {@code
 * maxConnections} are open, {@code maxPerAddress} from one address; one more is closed as soon as
 * it is accepted. A malformed message is answered FORMERR; one that cannot even be framed ends its
 * connection. Nothing a client sends stops the loop; {@link #stop()} does.
 */
final class TcpListener implements Runnable {
    private static final Logger LOG = LoggerFactory.getLogger(TcpListener.class);
    /** Answers queued for a client that does not read them; past it the connection is not read until they drain. */
    private static final int MAX_PENDING_OUT = PacketHandler.TCP_MAX + 2;

    private final ServerSocketChannel server;
    private final Selector selector;
    private final PacketHandler handler;
    private final long idleNanos;
    private final int maxConnections;
    private final int maxPerAddress;
    private final Map<InetAddress, Integer> perAddress = new HashMap<>(); // this thread only
    private int open; // this thread only
    private volatile boolean stopping;

    /** One client's connection: the message being read, the answers being written, and its deadline. */
    private static final class Connection {
        final SocketChannel channel;
        final InetAddress address;
        final ByteBuffer length = ByteBuffer.allocate(2);
        ByteBuffer message; // null until its length is in
        final ArrayList<ByteBuffer> out = new ArrayList<>();
        int pendingOut;
        long deadline;

        Connection(SocketChannel channel, InetAddress address, long deadline) {
            this.channel = channel;
            this.address = address;
            this.deadline = deadline;
        }
    }

    TcpListener(
            ServerSocketChannel server,
            PacketHandler handler,
            Duration idleTimeout,
            int maxConnections,
            int maxPerAddress)
            throws IOException {
        this.server = server;
        this.handler = handler;
        this.idleNanos = idleTimeout.toNanos();
        this.maxConnections = maxConnections;
        this.maxPerAddress = maxPerAddress;
        this.selector = Selector.open();
        server.configureBlocking(false);
        server.register(selector, SelectionKey.OP_ACCEPT);
    }

    @Override
    public void run() {
        long tickMillis = Math.max(10, Math.min(250, idleNanos / 4_000_000));
        try {
            while (!stopping) {
                selector.select(tickMillis);
                long now = System.nanoTime();
                for (SelectionKey key : selector.selectedKeys()) {
                    serve(key, now);
                }
                selector.selectedKeys().clear();
                expire(now);
            }
        } catch (IOException e) {
            LOG.warn("DNS over TCP stopped: {}", e.toString());
        } finally {
            for (SelectionKey key : selector.keys()) {
                if (key.attachment() instanceof Connection c) {
                    closeQuietly(c.channel);
                }
            }
            try {
                selector.close();
            } catch (IOException e) {
                LOG.debug("closing the DNS TCP selector failed: {}", e.toString());
            }
        }
    }

    private void serve(SelectionKey key, long now) {
        if (!key.isValid()) {
            return;
        }
        if (key.isAcceptable()) {
            accept(now);
            return;
        }
        Connection c = (Connection) key.attachment();
        try {
            if (key.isWritable()) {
                write(c, key, now);
            }
            if (key.isValid() && key.isReadable()) {
                read(c, key, now);
            }
        } catch (IOException e) {
            LOG.debug("DNS TCP connection from {} ended: {}", c.address, e.toString());
            close(key);
        } catch (RuntimeException e) {
            LOG.warn("serving a DNS TCP connection failed", e);
            close(key);
        }
    }

    private void accept(long now) {
        while (true) {
            SocketChannel channel;
            try {
                channel = server.accept();
            } catch (IOException e) {
                LOG.warn("accepting a DNS TCP connection failed: {}", e.toString());
                return;
            }
            if (channel == null) {
                return;
            }
            InetAddress address = ((InetSocketAddress) channel.socket().getRemoteSocketAddress()).getAddress();
            int fromAddress = perAddress.getOrDefault(address, 0);
            if (open >= maxConnections || fromAddress >= maxPerAddress) {
                LOG.debug("DNS TCP busy: closing the connection from {}", address);
                closeQuietly(channel);
                continue;
            }
            try {
                channel.configureBlocking(false);
                channel.socket().setTcpNoDelay(true);
                channel.register(selector, SelectionKey.OP_READ, new Connection(channel, address, now + idleNanos));
            } catch (IOException e) {
                closeQuietly(channel);
                continue;
            }
            open++;
            perAddress.put(address, fromAddress + 1);
        }
    }

    private void read(Connection c, SelectionKey key, long now) throws IOException {
        while (c.pendingOut < MAX_PENDING_OUT) {
            ByteBuffer into = c.message == null ? c.length : c.message;
            int n = c.channel.read(into);
            if (n < 0) {
                close(key); // the client is done
                return;
            }
            if (into.hasRemaining()) {
                return; // the rest later
            }
            if (c.message == null) {
                c.length.flip();
                int length = Short.toUnsignedInt(c.length.getShort());
                c.length.clear();
                c.message = ByteBuffer.allocate(length);
                if (length > 0) {
                    continue;
                }
            }
            byte[] query = c.message.array();
            c.message = null;
            byte[] answer = handler.respond(query, query.length, false);
            if (answer != null && answer.length > 0) {
                ByteBuffer framed = ByteBuffer.allocate(2 + answer.length);
                framed.putShort((short) answer.length).put(answer).flip();
                c.out.add(framed);
                c.pendingOut += framed.remaining();
                write(c, key, now);
                if (!key.isValid()) {
                    return;
                }
            } else if (c.out.isEmpty()) {
                c.deadline = now + idleNanos; // nothing to send: this exchange is over
            }
        }
        key.interestOps(SelectionKey.OP_WRITE); // answers pile up unread: stop reading until they drain
    }

    private void write(Connection c, SelectionKey key, long now) throws IOException {
        while (!c.out.isEmpty()) {
            ByteBuffer head = c.out.get(0);
            int n = c.channel.write(head);
            c.pendingOut -= n;
            if (head.hasRemaining()) {
                key.interestOps(SelectionKey.OP_WRITE | (c.pendingOut < MAX_PENDING_OUT ? SelectionKey.OP_READ : 0));
                return;
            }
            c.out.remove(0);
        }
        c.deadline = now + idleNanos; // every answer written: the next exchange starts
        key.interestOps(SelectionKey.OP_READ);
    }

    /** Closes each connection whose exchange is over its deadline. */
    private void expire(long now) {
        List<SelectionKey> late = new ArrayList<>();
        for (SelectionKey key : selector.keys()) {
            if (key.attachment() instanceof Connection c && now - c.deadline > 0) {
                late.add(key);
            }
        }
        late.forEach(this::close);
    }

    private void close(SelectionKey key) {
        Connection c = (Connection) key.attachment();
        key.cancel();
        closeQuietly(c.channel);
        open--;
        perAddress.computeIfPresent(c.address, (a, n) -> n <= 1 ? null : n - 1);
    }

    /** Ends the loop, which then closes every connection; any thread. */
    void stop() {
        stopping = true;
        selector.wakeup();
    }

    private static void closeQuietly(SocketChannel channel) {
        try {
            channel.close();
        } catch (IOException e) {
            // closing anyway
        }
    }
}
