package io.lodestar.it.bench;

import com.alibaba.nacos.shaded.io.grpc.netty.shaded.io.netty.channel.nio.NioEventLoopGroup;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Many idle nacos-client 2.x connections ({@link RawConnection}) on one server, each as the client holds one: a bi-stream
 * set up with the client's {@code ConnectionSetupRequest}, one ephemeral instance registered and
 * one config listened to; pushed requests (client detection, config notices) are answered as the
 * client answers them. Built from the client jar's own protocol classes and shaded gRPC, so that
 * ten thousand connections fit in one JVM (the client itself runs threads per instance). Prints
 * {@code connections_up N} and {@code setup_s S}, then holds them for {@code --hold} seconds (the
 * caller measures the server meanwhile) and closes them.
 *
 * <pre>ConnectionsBench --server H:P --count N [--hold S]</pre>
 */
public final class ConnectionsBench {
    private static final int IN_FLIGHT = 64;

    private ConnectionsBench() {}

    public static void main(String[] args) throws Exception {
        String server = option(args, "--server", "127.0.0.1:8848");
        int count = Integer.parseInt(option(args, "--count", "10000"));
        int hold = Integer.parseInt(option(args, "--hold", "60"));
        String host = server.substring(0, server.lastIndexOf(':'));
        int grpcPort = Integer.parseInt(server.substring(server.lastIndexOf(':') + 1)) + 1000;

        NioEventLoopGroup loop = new NioEventLoopGroup(2);
        ExecutorService exec = Executors.newFixedThreadPool(4); // the channels' callbacks
        // the connecting tasks block on their calls: on the callbacks' pool they would starve them
        ExecutorService connecting = Executors.newFixedThreadPool(IN_FLIGHT);
        List<RawConnection> connections = java.util.Collections.synchronizedList(new ArrayList<>(count));
        Semaphore inFlight = new Semaphore(IN_FLIGHT);
        AtomicInteger up = new AtomicInteger();
        AtomicInteger failed = new AtomicInteger();
        long t0 = System.nanoTime();
        for (int i = 0; i < count; i++) {
            inFlight.acquire();
            int n = i;
            connecting.execute(() -> {
                try {
                    connections.add(connect(host, grpcPort, loop, exec, n));
                    up.incrementAndGet();
                } catch (Exception e) {
                    if (failed.incrementAndGet() <= 5) {
                        System.err.println("connection " + n + " failed: " + e);
                    }
                } finally {
                    inFlight.release();
                }
            });
        }
        inFlight.acquire(IN_FLIGHT);
        System.out.printf("connections_up %d%n", up.get());
        System.out.printf("connections_failed %d%n", failed.get());
        System.out.printf("setup_s %.1f%n", (System.nanoTime() - t0) / 1e9);
        System.out.flush();
        Thread.sleep(hold * 1000L);
        connections.forEach(RawConnection::close);
        loop.shutdownGracefully();
        exec.shutdownNow();
        connecting.shutdownNow();
        System.exit(0);
    }

    /** One connection, as the client makes it: server check, setup, a registration, a listen. */
    private static RawConnection connect(String host, int grpcPort, NioEventLoopGroup loop, ExecutorService exec, int n)
            throws Exception {
        RawConnection c = new RawConnection(host, grpcPort, loop, exec).connect("naming");
        RawConnection.check(c.request(
                        "InstanceRequest",
                        "{\"headers\":{},\"namespace\":\"public\",\"serviceName\":\"conn-bench\","
                                + "\"groupName\":\"DEFAULT_GROUP\",\"type\":\"registerInstance\",\"instance\":{"
                                + "\"ip\":\"127.0.0.1\",\"port\":" + (20_000 + n) + ",\"weight\":1.0,\"healthy\":true,"
                                + "\"enabled\":true,\"ephemeral\":true,\"clusterName\":\"DEFAULT\",\"metadata\":{}},"
                                + "\"module\":\"naming\"}")
                .get(30, TimeUnit.SECONDS));
        RawConnection.check(c.request(
                        "ConfigBatchListenRequest",
                        "{\"headers\":{},\"listen\":true,\"configListenContexts\":[{\"group\":\"BENCH\","
                                + "\"md5\":\"\",\"dataId\":\"conn-bench-" + n + "\",\"tenant\":\"\"}],"
                                + "\"module\":\"config\"}")
                .get(30, TimeUnit.SECONDS));
        return c;
    }

    private static String option(String[] args, String name, String absent) {
        int i = Arrays.asList(args).indexOf(name);
        return i >= 0 && i + 1 < args.length ? args[i + 1] : absent;
    }
}
