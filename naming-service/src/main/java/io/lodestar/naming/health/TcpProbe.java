package io.lodestar.naming.health;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.channels.ClosedSelectorException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.util.Comparator;
import java.util.Iterator;
import java.util.PriorityQueue;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Healthy when a TCP connection to the target opens within the timeout; the connection is closed
 * at once, nothing is sent. Like Nacos's TCP checker. A refused connect or a timeout is DOWN.
 *
 * <p>All connects in flight wait on one {@link Selector} served by one thread, {@value
 * #THREAD_NAME}, which also completes the futures and enforces the timeouts: hundreds of targets
 * cost one thread and a socket each while their connect is pending.
 */
public final class TcpProbe implements Probe {
    private static final Logger LOG = LoggerFactory.getLogger(TcpProbe.class);
    static final String THREAD_NAME = "health-probe-tcp";

    private final Selector selector;
    /** Connects started by callers, handed to the selector thread to register. */
    private final Queue<Attempt> started = new ConcurrentLinkedQueue<>();

    private final Thread thread;
    private volatile boolean closed;

    public TcpProbe() {
        try {
            this.selector = Selector.open();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot open a selector for TCP health probes", e);
        }
        this.thread = new Thread(this::run, THREAD_NAME);
        thread.setDaemon(true);
        thread.start();
    }

    @Override
    public CompletableFuture<ProbeResult> probe(InetSocketAddress address, ProbeSettings settings) {
        if (closed) {
            return CompletableFuture.completedFuture(ProbeResult.unknown("probe closed"));
        }
        if (address.isUnresolved()) {
            throw new IllegalArgumentException("not resolved: " + address); // the caller resolves, see Probe
        }
        SocketChannel channel;
        try {
            channel = SocketChannel.open();
            channel.configureBlocking(false);
        } catch (IOException e) {
            // our side (e.g. out of file descriptors): says nothing about the target
            return CompletableFuture.completedFuture(ProbeResult.unknown("cannot open a socket: " + e));
        }
        try {
            if (channel.connect(address)) {
                ProbeResult result = connected(channel);
                closeQuietly(channel);
                return CompletableFuture.completedFuture(result);
            }
        } catch (IOException | RuntimeException e) {
            closeQuietly(channel);
            return CompletableFuture.completedFuture(ProbeResult.down("connect failed: " + e.getMessage()));
        }
        long timeoutNanos = settings.timeout().toNanos();
        Attempt attempt = new Attempt(channel, System.nanoTime() + timeoutNanos, timeoutNanos);
        started.add(attempt);
        selector.wakeup();
        if (closed) {
            // close() may have drained the queue before our add: make sure nobody waits forever
            attempt.finish(ProbeResult.unknown("probe closed"));
        }
        return attempt.future;
    }

    private void run() {
        PriorityQueue<Attempt> byDeadline = new PriorityQueue<>(Comparator.comparingLong(a -> a.deadlineNanos));
        try {
            while (!closed) {
                try {
                    Attempt next = byDeadline.peek();
                    long waitMs = next == null
                            ? 0 // 0 = until woken
                            : Math.max(1, TimeUnit.NANOSECONDS.toMillis(next.deadlineNanos - System.nanoTime()) + 1);
                    selector.select(waitMs);
                    registerStarted(byDeadline);
                    completeConnected();
                    expire(byDeadline);
                } catch (ClosedSelectorException e) {
                    break;
                } catch (IOException | RuntimeException e) {
                    // keep serving the other probes; the pause keeps a persistent fault from spinning
                    LOG.warn("TCP health probe loop hit an error; carrying on", e);
                    pause();
                }
            }
        } finally {
            for (SelectionKey key : selector.keys()) {
                ((Attempt) key.attachment()).finish(ProbeResult.unknown("probe closed"));
            }
            drainStarted();
            closeQuietly(selector);
        }
    }

    private static void pause() {
        try {
            Thread.sleep(100);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void registerStarted(PriorityQueue<Attempt> byDeadline) {
        Attempt a;
        while ((a = started.poll()) != null) {
            try {
                a.channel.register(selector, SelectionKey.OP_CONNECT, a);
                byDeadline.add(a);
            } catch (IOException e) {
                a.finish(ProbeResult.unknown("cannot watch the connect: " + e));
            }
        }
    }

    private void completeConnected() {
        Iterator<SelectionKey> keys = selector.selectedKeys().iterator();
        while (keys.hasNext()) {
            SelectionKey key = keys.next();
            keys.remove();
            Attempt a = (Attempt) key.attachment();
            try {
                if (a.channel.finishConnect()) {
                    a.finish(connected(a.channel));
                }
            } catch (IOException e) {
                a.finish(ProbeResult.down("connect failed: " + e.getMessage()));
            }
        }
    }

    /**
     * The result of a connect that succeeded. A probe of a closed port on this very host can
     * connect to itself (TCP simultaneous open, when the kernel picks the target port as the
     * source port): that says nothing listens there.
     */
    private static ProbeResult connected(SocketChannel channel) throws IOException {
        return channel.getLocalAddress().equals(channel.getRemoteAddress())
                ? ProbeResult.down("connected to itself: nothing listens there")
                : ProbeResult.up("connected");
    }

    private static void expire(PriorityQueue<Attempt> byDeadline) {
        long now = System.nanoTime();
        while (!byDeadline.isEmpty() && (byDeadline.peek().future.isDone() || byDeadline.peek().deadlineNanos <= now)) {
            Attempt a = byDeadline.poll();
            a.finish(ProbeResult.down("timed out after " + TimeUnit.NANOSECONDS.toMillis(a.timeoutNanos) + " ms"));
        }
    }

    private void drainStarted() {
        Attempt a;
        while ((a = started.poll()) != null) {
            a.finish(ProbeResult.unknown("probe closed"));
        }
    }

    /** Stops the selector thread; connects in flight complete UNKNOWN. Idempotent. */
    @Override
    public void close() {
        closed = true;
        selector.wakeup();
        try {
            thread.join(TimeUnit.SECONDS.toMillis(5));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        drainStarted();
    }

    private static void closeQuietly(AutoCloseable c) {
        if (c == null) {
            return;
        }
        try {
            c.close();
        } catch (Exception e) {
            LOG.debug("closing {} failed", c, e);
        }
    }

    /** One connect in flight. Finished once: the channel is closed and the future completed. */
    private static final class Attempt {
        final SocketChannel channel;
        final long deadlineNanos;
        final long timeoutNanos;
        final CompletableFuture<ProbeResult> future = new CompletableFuture<>();

        Attempt(SocketChannel channel, long deadlineNanos, long timeoutNanos) {
            this.channel = channel;
            this.deadlineNanos = deadlineNanos;
            this.timeoutNanos = timeoutNanos;
        }

        void finish(ProbeResult result) {
            if (future.isDone()) {
                return;
            }
            closeQuietly(channel); // also cancels its selection key
            future.complete(result);
        }
    }
}
