package io.lodestar.api.udp;

import io.lodestar.api.delivery.LatestUntilAcked;
import io.lodestar.api.limits.Limit;
import io.lodestar.limits.CountsByAddress;
import io.lodestar.naming.model.ServiceKey;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.DatagramChannel;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Pushes instance lists to Nacos 1.x clients over UDP, so they hear of a change within a moment
 * instead of at their next poll (every 10 s).
 *
 * <p><b>Subscribers.</b> A list query with a {@code udpPort} subscribes (service, address, port,
 * clusters) through {@link #subscribe}; each further query renews it. A subscriber that has not
 * been renewed for {@link UdpPushSettings#subscriberTtl()} is dropped.
 *
 * <p><b>Pushes.</b> {@link #serviceChanged} marks a service; the push thread then renders the
 * service's list once per distinct cluster filter among its subscribers ({@link PushSource}) and
 * sends each subscriber a {@link PushPacket} with its own id, all from one {@link DatagramChannel},
 * through {@link LatestUntilAcked}: a push not acknowledged (a {@code push-ack} echoing its id,
 * from the address it was sent to) within {@link UdpPushSettings#resendInterval()} is sent again,
 * at most {@link UdpPushSettings#resends()} times, and a newer push to the same subscriber
 * replaces an unacknowledged older one.
 *
 * <p><b>Threads.</b> {@link #subscribe} and {@link #serviceChanged} may be called from any thread
 * and never block on the network (the latter only marks the service and wakes the push thread, so
 * the naming notifier is never held up). One push thread renders, sends, resends, times out and
 * expires; one receiver thread reads acks.
 */
public final class UdpPusher implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(UdpPusher.class);
    /** Acks are tiny; anything longer is not one and is not parsed. */
    private static final int MAX_ACK_BYTES = 4096;

    private static final long CAP_WARNING_INTERVAL_NANOS = TimeUnit.MINUTES.toNanos(1);

    /** Where to push and which clusters the subscriber asked for (the query's string). */
    record Target(InetSocketAddress address, String clusters) {}

    /** One subscription of one service: the unit a newer push supersedes an older one in (by identity). */
    private static final class Subscriber {
        final Target target;
        volatile long lastSeenNanos;

        Subscriber(Target target, long now) {
            this.target = target;
            this.lastSeenNanos = now;
        }
    }

    /** A push's id and bytes: a resend is the same datagram, so the client's ack of either matches. */
    private record Datagram(long id, byte[] bytes) {}

    /** A datagram sent and not yet acknowledged; only its subscriber's address can acknowledge it. */
    private record Awaiting(InetSocketAddress from, CompletableFuture<Void> ack) {}

    private final DatagramChannel channel;
    private final PushSource source;
    private final UdpPushSettings settings;
    private final ScheduledExecutorService pushThread;
    private final Thread receiver;
    private final ConcurrentHashMap<ServiceKey, ConcurrentHashMap<Target, Subscriber>> subscribers =
            new ConcurrentHashMap<>();
    private final AtomicInteger subscriberCount = new AtomicInteger();
    /** Subscriptions held per client address, within {@link UdpPushSettings#maxSubscribersPerAddress()}. */
    private final CountsByAddress<InetAddress> perAddress;

    private final Set<ServiceKey> dirty = ConcurrentHashMap.newKeySet();
    private final AtomicBoolean drainScheduled = new AtomicBoolean();
    /** Sent datagrams awaiting their ack, by id; added on the push thread, removed by either thread. */
    private final ConcurrentHashMap<Long, Awaiting> awaiting = new ConcurrentHashMap<>();

    private final LatestUntilAcked<Subscriber, Datagram> delivery;
    /** Push ids, seeded from the clock so a late ack for a previous run's push cannot match one of this run's. */
    private final AtomicLong ids = new AtomicLong(System.currentTimeMillis() * 1000);

    private final AtomicLong pushes = new AtomicLong();
    private final AtomicLong acks = new AtomicLong();
    private final AtomicLong resends = new AtomicLong();
    private final AtomicLong failures = new AtomicLong();
    private final AtomicLong lastCapWarning = new AtomicLong(System.nanoTime() - CAP_WARNING_INTERVAL_NANOS);
    private volatile boolean closed;

    /** Told of each subscription a cap refused. */
    private final Consumer<Limit> refused;

    private UdpPusher(DatagramChannel channel, PushSource source, UdpPushSettings settings, Consumer<Limit> refused) {
        this.channel = channel;
        this.source = source;
        this.settings = settings;
        this.refused = refused;
        this.perAddress = new CountsByAddress<>(settings.maxSubscribersPerAddress());
        this.pushThread = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "udp-push");
            t.setDaemon(true);
            return t;
        });
        this.receiver = new Thread(this::receiveAcks, "udp-push-acks");
        this.receiver.setDaemon(true);
        this.delivery = new LatestUntilAcked<>(
                this::transmit,
                new LatestUntilAcked.Outcomes<>() {
                    @Override
                    public void retried(Subscriber s) {
                        resends.incrementAndGet();
                    }

                    @Override
                    public void gaveUp(Subscriber s, Throwable lastFailure) {
                        failures.incrementAndGet();
                        LOG.debug("push to {} unacknowledged after its resends; giving up", s.target);
                    }
                },
                pushThread,
                settings.resends() + 1,
                0); // the ack's wait is the interval between sends
    }

    /** Binds a UDP port on {@code host} (any free port: clients learn nothing of it but the source of pushes) and starts. */
    public static UdpPusher start(String host, PushSource source, UdpPushSettings settings) throws IOException {
        return start(host, source, settings, limit -> {});
    }

    /** As {@link #start(String, PushSource, UdpPushSettings)}; {@code refused} is told of each subscription a cap refused. */
    public static UdpPusher start(String host, PushSource source, UdpPushSettings settings, Consumer<Limit> refused)
            throws IOException {
        DatagramChannel channel = DatagramChannel.open();
        try {
            channel.bind(new InetSocketAddress(host, 0));
        } catch (IOException | RuntimeException e) {
            channel.close();
            throw e;
        }
        UdpPusher pusher = new UdpPusher(channel, source, settings, refused);
        pusher.receiver.start();
        long sweep = Math.max(10, Math.min(settings.subscriberTtl().toMillis() / 3, 10_000));
        pusher.pushThread.scheduleWithFixedDelay(pusher::expire, sweep, sweep, TimeUnit.MILLISECONDS);
        LOG.info("UDP push to 1.x clients from {}", pusher.localAddress());
        return pusher;
    }

    /** The address pushes are sent from (and acks read on). */
    public InetSocketAddress localAddress() {
        try {
            return (InetSocketAddress) channel.getLocalAddress();
        } catch (IOException e) {
            return null;
        }
    }

    /**
     * Subscribes {@code address:port} to pushes of {@code service} filtered by {@code clusters} (as
     * the list query gave them), or renews that subscription. Any thread; never blocks on I/O.
     */
    public void subscribe(ServiceKey service, String clusters, InetAddress address, int port) {
        if (closed) {
            return;
        }
        Target target = new Target(new InetSocketAddress(address, port), clusters == null ? "" : clusters);
        long now = System.nanoTime();
        // every change to a service's subscriber map happens inside compute on the outer map, so
        // expiry removing an emptied map can never lose a subscription added at the same time
        subscribers.compute(service, (key, subs) -> {
            ConcurrentHashMap<Target, Subscriber> map = subs == null ? new ConcurrentHashMap<>() : subs;
            Subscriber known = map.get(target);
            if (known != null) {
                known.lastSeenNanos = now;
            } else if (subscriberCount.get() >= settings.maxSubscribers()) {
                refused.accept(Limit.UDP_SUBSCRIBERS);
                warnCapped();
            } else if (!perAddress.tryAcquire(address)) {
                refused.accept(Limit.UDP_SUBSCRIBERS_PER_ADDRESS); // that client polls; the others keep their room
            } else {
                map.put(target, new Subscriber(target, now));
                subscriberCount.incrementAndGet();
            }
            return map.isEmpty() ? null : map;
        });
    }

    private void warnCapped() {
        long last = lastCapWarning.get();
        long now = System.nanoTime();
        if (now - last >= CAP_WARNING_INTERVAL_NANOS && lastCapWarning.compareAndSet(last, now)) {
            LOG.warn(
                    "{} UDP push subscribers held, the most allowed: further clients are not subscribed and poll instead",
                    settings.maxSubscribers());
        }
    }

    /** Reports that {@code service} changed: its subscribers get the new list. Any thread; never blocks. */
    public void serviceChanged(ServiceKey service) {
        if (closed || !subscribers.containsKey(service)) {
            return;
        }
        dirty.add(service);
        if (drainScheduled.compareAndSet(false, true)) {
            try {
                pushThread.execute(this::drain);
            } catch (RejectedExecutionException e) {
                // closed meanwhile
            }
        }
    }

    /** The addresses ({@code ip:port}) subscribed to {@code service} here, each with the clusters it asked for. */
    public Map<String, String> subscribers(ServiceKey service) {
        Map<String, String> out = new java.util.LinkedHashMap<>();
        Map<Target, Subscriber> subs = subscribers.get(service);
        if (subs != null) {
            subs.keySet().forEach(t -> out.put(hostPort(t.address()), t.clusters()));
        }
        return out;
    }

    private static String hostPort(InetSocketAddress a) {
        String ip = a.getAddress().getHostAddress();
        return ip.indexOf(':') >= 0 ? "[" + ip + "]:" + a.getPort() : ip + ":" + a.getPort();
    }

    public UdpPushSettings settings() {
        return settings;
    }

    public PushStats stats() {
        return new PushStats(
                subscriberCount.get(), delivery.inFlight(), pushes.get(), acks.get(), resends.get(), failures.get());
    }

    private void drain() {
        // cleared first: a service marked from now on schedules another drain, one marked before is seen below
        drainScheduled.set(false);
        for (Iterator<ServiceKey> it = dirty.iterator(); it.hasNext(); ) {
            ServiceKey service = it.next();
            it.remove();
            try {
                push(service);
            } catch (RuntimeException e) {
                LOG.warn("pushing {} failed", service, e);
            }
        }
    }

    private void push(ServiceKey service) {
        Map<Target, Subscriber> subs = subscribers.get(service);
        if (subs == null) {
            return;
        }
        Map<String, String> lists = new HashMap<>();
        for (Subscriber s : subs.values()) {
            String clusters = s.target.clusters();
            if (!lists.containsKey(clusters)) {
                lists.put(clusters, render(service, clusters));
            }
            String json = lists.get(clusters);
            if (json != null) {
                send(service, s, json);
            }
        }
    }

    private String render(ServiceKey service, String clusters) {
        try {
            return source.listJson(service, clusters);
        } catch (RuntimeException e) {
            LOG.warn("cannot render {} (clusters '{}') for a push; its subscribers will poll", service, clusters, e);
            return null;
        }
    }

    private void send(ServiceKey service, Subscriber s, String json) {
        long id = ids.incrementAndGet();
        byte[] datagram = PushPacket.encode("dom", json, id);
        if (datagram.length > PushPacket.MAX_DATAGRAM) {
            failures.incrementAndGet();
            LOG.debug(
                    "the list of {} is {} bytes even gzipped, too large for a datagram; its subscribers poll",
                    service,
                    datagram.length);
            return;
        }
        pushes.incrementAndGet();
        delivery.deliver(s, new Datagram(id, datagram));
    }

    /** Sends the datagram once; the future completes on its ack and fails after the resend interval without one. */
    private CompletableFuture<Void> transmit(Subscriber s, Datagram d) {
        Awaiting wait = new Awaiting(s.target.address(), new CompletableFuture<>());
        awaiting.put(d.id(), wait);
        try {
            channel.send(ByteBuffer.wrap(d.bytes()), s.target.address());
        } catch (IOException | RuntimeException e) {
            // e.g. an IPv6 subscriber while bound to IPv4: the resends will fail alike and give up
            LOG.debug("sending push {} to {} failed: {}", d.id(), s.target, e.toString());
        }
        try {
            pushThread.schedule(
                    () -> {
                        if (awaiting.remove(d.id(), wait)) {
                            wait.ack().completeExceptionally(new TimeoutException("no ack of push " + d.id()));
                        }
                    },
                    settings.resendInterval().toNanos(),
                    TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException closing) {
            awaiting.remove(d.id(), wait);
        }
        return wait.ack();
    }

    private void receiveAcks() {
        ByteBuffer buffer = ByteBuffer.allocate(1 << 16);
        while (!closed) {
            buffer.clear();
            SocketAddress from;
            try {
                from = channel.receive(buffer);
            } catch (ClosedChannelException e) {
                return;
            } catch (IOException e) {
                if (closed) {
                    return;
                }
                LOG.debug("reading a push ack failed: {}", e.toString());
                continue;
            }
            buffer.flip();
            if (!(from instanceof InetSocketAddress sender) || buffer.limit() > MAX_ACK_BYTES) {
                continue;
            }
            long id = PushPacket.ackedId(buffer.array(), buffer.limit());
            if (id >= 0) {
                acknowledge(id, sender);
            }
        }
    }

    /** Only the address a push went to can acknowledge it, so a forged ack cannot silence resends to someone else. */
    private void acknowledge(long id, InetSocketAddress from) {
        Awaiting wait = awaiting.get(id);
        if (wait != null && wait.from().equals(from) && awaiting.remove(id, wait)) {
            wait.ack().complete(null);
            acks.incrementAndGet();
        }
    }

    private void expire() {
        long cutoff = System.nanoTime() - settings.subscriberTtl().toNanos();
        for (ServiceKey service : subscribers.keySet()) {
            subscribers.computeIfPresent(service, (key, subs) -> {
                subs.values().removeIf(s -> {
                    if (s.lastSeenNanos - cutoff < 0) {
                        subscriberCount.decrementAndGet();
                        perAddress.release(s.target.address().getAddress());
                        delivery.forget(s);
                        return true;
                    }
                    return false;
                });
                return subs.isEmpty() ? null : subs;
            });
        }
    }

    /** Stops pushing and closes the channel; pending resends are dropped. */
    @Override
    public void close() {
        closed = true;
        pushThread.shutdownNow();
        try {
            channel.close();
        } catch (IOException e) {
            LOG.debug("closing the UDP push channel failed", e);
        }
        try {
            receiver.join(2000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
