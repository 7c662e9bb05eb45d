package io.lodestar.it.bench;

import com.alibaba.nacos.api.grpc.auto.Payload;
import com.alibaba.nacos.shaded.com.google.common.util.concurrent.ListenableFuture;
import com.alibaba.nacos.shaded.io.grpc.netty.shaded.io.netty.channel.nio.NioEventLoopGroup;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * A server's capacity for nacos-client 2.x requests, as wrk measures the HTTP API: a few
 * connections ({@link RawConnection}), each keeping {@code --in-flight} requests outstanding, for
 * {@code --seconds} after {@code --warmup}. The official client cannot measure this: it lets an
 * identical config query through 5 times a second and answers the rest from its local snapshot.
 * Prints {@code <mode>_per_s N} and {@code <mode>_failed N}.
 *
 * <pre>GrpcLoadBench query|register --server H:P [--connections C] [--in-flight F] [--seconds S] [--warmup S]</pre>
 *
 * <p>{@code query}: {@code ConfigQueryRequest} of one 512-byte config. {@code register}: an
 * ephemeral {@code InstanceRequest} of a new service each time (a connection holds one instance
 * per service, so each is a new registration).
 */
public final class GrpcLoadBench {
    private GrpcLoadBench() {}

    public static void main(String[] args) throws Exception {
        if (args.length == 0 || args[0].startsWith("-")) {
            System.out.println("usage: GrpcLoadBench query|register --server H:P [--connections C] [--in-flight F]"
                    + " [--seconds S] [--warmup S]");
            return;
        }
        String mode = args[0];
        String server = option(args, "--server", "127.0.0.1:8848");
        int connections = Integer.parseInt(option(args, "--connections", "8"));
        int inFlight = Integer.parseInt(option(args, "--in-flight", "8"));
        int seconds = Integer.parseInt(option(args, "--seconds", "10"));
        int warmup = Integer.parseInt(option(args, "--warmup", "5"));
        String host = server.substring(0, server.lastIndexOf(':'));
        int grpcPort = Integer.parseInt(server.substring(server.lastIndexOf(':') + 1)) + 1000;

        NioEventLoopGroup loop = new NioEventLoopGroup(1);
        ExecutorService exec = Executors.newFixedThreadPool(2);
        List<RawConnection> conns = new ArrayList<>();
        for (int i = 0; i < connections; i++) {
            conns.add(
                    new RawConnection(host, grpcPort, loop, exec).connect(mode.equals("query") ? "config" : "naming"));
        }
        if (mode.equals("query")) {
            RawConnection.check(conns.get(0)
                    .request(
                            "ConfigPublishRequest",
                            "{\"headers\":{},\"dataId\":\"bench-load\",\"group\":\"BENCH\",\"tenant\":\"\",\"content\":\""
                                    + "x".repeat(512) + "\",\"additionMap\":{},\"module\":\"config\"}")
                    .get(30, TimeUnit.SECONDS));
            Thread.sleep(500); // a Nacos follower of its own dump reads the new config a moment later
        } else if (!mode.equals("register")) {
            throw new IllegalArgumentException("unknown mode " + mode);
        }
        LongAdder done = new LongAdder();
        LongAdder failed = new LongAdder();
        AtomicBoolean counting = new AtomicBoolean();
        AtomicBoolean stop = new AtomicBoolean();
        AtomicLong sequence = new AtomicLong();
        long stamp = System.nanoTime();
        for (RawConnection c : conns) {
            for (int f = 0; f < inFlight; f++) {
                issue(c, mode, stamp, sequence, done, failed, counting, stop, exec);
            }
        }
        Thread.sleep(warmup * 1000L);
        counting.set(true);
        long t0 = System.nanoTime();
        Thread.sleep(seconds * 1000L);
        counting.set(false);
        double elapsed = (System.nanoTime() - t0) / 1e9;
        stop.set(true);
        String name = mode.equals("query") ? "raw_config_query" : "raw_register";
        System.out.printf("%s_per_s %.0f%n", name, done.sum() / elapsed);
        System.out.printf("%s_failed %d%n", name, failed.sum());
        System.out.flush();
        System.exit(0);
    }

    private static void issue(
            RawConnection c,
            String mode,
            long stamp,
            AtomicLong sequence,
            LongAdder done,
            LongAdder failed,
            AtomicBoolean counting,
            AtomicBoolean stop,
            ExecutorService exec) {
        if (stop.get()) {
            return;
        }
        String json = mode.equals("query")
                ? "{\"headers\":{},\"dataId\":\"bench-load\",\"group\":\"BENCH\",\"tenant\":\"\",\"module\":\"config\"}"
                : "{\"headers\":{},\"namespace\":\"public\",\"serviceName\":\"bench-load-" + stamp + "-"
                        + sequence.incrementAndGet()
                        + "\",\"groupName\":\"DEFAULT_GROUP\",\"type\":\"registerInstance\","
                        + "\"instance\":{\"ip\":\"127.0.0.1\",\"port\":20000,\"weight\":1.0,\"healthy\":true,"
                        + "\"enabled\":true,\"ephemeral\":true,\"clusterName\":\"DEFAULT\",\"metadata\":{}},"
                        + "\"module\":\"naming\"}";
        ListenableFuture<Payload> f = c.request(mode.equals("query") ? "ConfigQueryRequest" : "InstanceRequest", json);
        f.addListener(
                () -> {
                    try {
                        RawConnection.check(f.get());
                        if (counting.get()) {
                            done.increment();
                        }
                    } catch (Exception e) {
                        failed.increment();
                    }
                    issue(c, mode, stamp, sequence, done, failed, counting, stop, exec);
                },
                exec);
    }

    private static String option(String[] args, String name, String absent) {
        int i = Arrays.asList(args).indexOf(name);
        return i >= 0 && i + 1 < args.length ? args[i + 1] : absent;
    }
}
