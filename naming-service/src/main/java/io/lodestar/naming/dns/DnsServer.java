package io.lodestar.naming.dns;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.BindException;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The DNS interface of the registry: answers queries for the healthy instances of services (see
 * the package doc and {@link DnsResponder}) over UDP and TCP on one host and port.
 *
 * <p>Lifecycle: {@link #start()} binds both sockets (port 0 picks a port free for both) and
 * starts the threads; {@link #close()} stops them. Threads: {@code udpThreads} named {@value
 * #UDP_THREAD}-N answer UDP queries; {@value #TCP_THREAD} serves every TCP connection (see {@link
 * TcpListener}). All are daemons; the source is called on the UDP and TCP threads.
 *
 * <p>Like any UDP DNS server it answers whoever a packet claims to come from, with up to {@code
 * maxUdpPayload} bytes: bind it to an address only trusted networks reach (the default is
 * 127.0.0.1).
 */
public final class DnsServer implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(DnsServer.class);
    static final String UDP_THREAD = "dns-udp";
    static final String TCP_THREAD = "dns-tcp";
    /** Tries at finding a port free for both UDP and TCP when asked for port 0. */
    private static final int BIND_ATTEMPTS = 20;

    private final DnsServerSettings settings;
    private final PacketHandler handler;
    private DatagramSocket udp;
    private ServerSocketChannel tcp;
    private TcpListener tcpListener;
    private final List<Thread> threads = new ArrayList<>();
    private boolean started;
    private boolean closed;

    private final UdpAnswerRate udpRate;
    private final Runnable rateLimited;

    public DnsServer(DnsServerSettings settings, DnsRecordSource source) {
        this(settings, source, () -> {});
    }

    /** {@code rateLimited} is told of each UDP query left unanswered by the answer rate limit. */
    public DnsServer(DnsServerSettings settings, DnsRecordSource source, Runnable rateLimited) {
        this.settings = settings;
        this.handler = new PacketHandler(new DnsResponder(source, settings), settings.maxUdpPayload());
        this.udpRate = new UdpAnswerRate(settings.udpAnswersPerSecond());
        this.rateLimited = rateLimited;
    }

    /**
     * Binds UDP and TCP on the settings' host and port and starts answering. Throws {@link
     * UncheckedIOException} if either cannot be bound (nothing is left open then), {@link
     * IllegalStateException} if already started or closed.
     */
    public synchronized DnsServer start() {
        if (started || closed) {
            throw new IllegalStateException(closed ? "DNS server is closed" : "DNS server already started");
        }
        started = true;
        try {
            bind();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot bind DNS on " + settings.host() + ":" + settings.port(), e);
        }
        for (int i = 1; i <= settings.udpThreads(); i++) {
            startThread(new UdpListener(udp, handler, udpRate, rateLimited), UDP_THREAD + "-" + i);
        }
        try {
            tcpListener = new TcpListener(
                    tcp,
                    handler,
                    settings.tcpIdleTimeout(),
                    settings.tcpConnections(),
                    settings.tcpConnectionsPerAddress());
        } catch (IOException e) {
            closed = true;
            udp.close();
            closeTcp();
            throw new UncheckedIOException("cannot serve DNS over TCP", e);
        }
        startThread(tcpListener, TCP_THREAD);
        LOG.info("DNS answering for zone {} on {}:{} (UDP and TCP)", settings.zone(), settings.host(), port());
        return this;
    }

    private void bind() throws IOException {
        InetAddress host = InetAddress.getByName(settings.host());
        IOException last = null;
        for (int attempt = 0; attempt < (settings.port() == 0 ? BIND_ATTEMPTS : 1); attempt++) {
            DatagramSocket u = null;
            try {
                u = new DatagramSocket(new InetSocketAddress(host, settings.port()));
                ServerSocketChannel t = ServerSocketChannel.open();
                try {
                    t.socket().setReuseAddress(true); // a restarted server must not wait out TIME_WAIT
                    t.bind(new InetSocketAddress(host, u.getLocalPort()), 128);
                } catch (IOException e) {
                    t.close();
                    throw e;
                }
                udp = u;
                tcp = t;
                return;
            } catch (BindException e) {
                // with port 0, the UDP port picked may be taken for TCP: try another
                last = e;
                if (u != null) {
                    u.close();
                }
            } catch (IOException | RuntimeException e) {
                if (u != null) {
                    u.close();
                }
                throw e;
            }
        }
        throw last;
    }

    private void startThread(Runnable task, String name) {
        Thread t = new Thread(task, name);
        t.setDaemon(true);
        threads.add(t);
        t.start();
    }

    /** The port both sockets listen on; after {@link #start()}. */
    public synchronized int port() {
        if (udp == null) {
            throw new IllegalStateException("DNS server not started");
        }
        return udp.getLocalPort();
    }

    /** Closes both sockets and every connection, and stops the threads. Idempotent. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        if (!started || udp == null) {
            return;
        }
        udp.close();
        if (tcpListener != null) {
            tcpListener.stop();
        }
        for (Thread t : threads) {
            try {
                t.join(5_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        closeTcp(); // once its selector is closed: the port is let go of at once
    }

    private void closeTcp() {
        try {
            tcp.close();
        } catch (IOException e) {
            LOG.debug("closing the DNS TCP socket failed", e);
        }
    }
}
