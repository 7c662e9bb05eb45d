package io.lodestar.it.bench;

import com.alibaba.nacos.api.NacosFactory;
import com.alibaba.nacos.api.PropertyKeyConst;
import com.alibaba.nacos.api.config.ConfigService;
import com.alibaba.nacos.api.config.listener.AbstractListener;
import com.alibaba.nacos.api.naming.NamingFactory;
import com.alibaba.nacos.api.naming.NamingService;
import com.alibaba.nacos.api.naming.listener.Event;
import com.alibaba.nacos.api.naming.listener.NamingEvent;
import com.alibaba.nacos.api.naming.pojo.Instance;
import java.util.Arrays;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * What a nacos-client 2.x application feels of a server, through the unmodified client over gRPC,
 * the same against Lodestar and Nacos: how soon a listener hears a config change, and a subscriber
 * a registration. Prints one {@code name value} line per figure. (Throughput is {@link
 * GrpcLoadBench}'s: the client itself lets an identical config query through only 5 times a
 * second.)
 *
 * <pre>GrpcClientBench notify|naming-event --server H:P [--rounds N]</pre>
 */
public final class GrpcClientBench {
    private static final long CLIENT_LIMIT_GAP_MS = 250;

    private GrpcClientBench() {}

    public static void main(String[] args) throws Exception {
        if (args.length == 0 || args[0].startsWith("-")) {
            System.out.println("usage: GrpcClientBench notify|naming-event --server H:P [--rounds N]");
            return;
        }
        String mode = args[0];
        String server = option(args, "--server", "127.0.0.1:8848");
        int rounds = Integer.parseInt(option(args, "--rounds", "200"));
        switch (mode) {
            case "notify" -> notifyLatency(server, rounds);
            case "naming-event" -> namingEventLatency(server, rounds);
            default -> throw new IllegalArgumentException("unknown mode " + mode);
        }
        System.exit(0); // the clients' own threads would keep the JVM up
    }

    private static String option(String[] args, String name, String absent) {
        int i = Arrays.asList(args).indexOf(name);
        return i >= 0 && i + 1 < args.length ? args[i + 1] : absent;
    }

    private static Properties props(String server) {
        Properties p = new Properties();
        p.put(PropertyKeyConst.SERVER_ADDR, server);
        return p;
    }

    /** Publish on one client, until the listener of another is called with the new content. */
    private static void notifyLatency(String server, int rounds) throws Exception {
        ConfigService writer = NacosFactory.createConfigService(props(server));
        ConfigService reader = NacosFactory.createConfigService(props(server));
        String dataId = "bench-notify-" + System.nanoTime();
        BlockingQueue<String> heard = new LinkedBlockingQueue<>();
        writer.publishConfig(dataId, "BENCH", "v0");
        awaitReadable(reader, dataId, "v0");
        reader.addListener(dataId, "BENCH", new AbstractListener() {
            @Override
            public void receiveConfigInfo(String content) {
                heard.add(content);
            }
        });
        long[] ms = new long[rounds];
        int warm = Math.min(20, rounds / 5);
        for (int i = -warm; i < rounds; i++) {
            String content = "v" + (i + warm + 1);
            long t0 = System.nanoTime();
            if (!writer.publishConfig(dataId, "BENCH", content)) {
                throw new IllegalStateException("publish refused");
            }
            while (true) {
                String got = heard.poll(10, TimeUnit.SECONDS);
                if (got == null) {
                    throw new IllegalStateException("no notice for " + content + " within 10 s");
                }
                if (got.equals(content)) {
                    break;
                }
            }
            if (i >= 0) {
                ms[i] = System.nanoTime() - t0;
            }
            // The client lets the same request through at most 5 times a second (its Limiter, on
            // the query that follows each notice): rounds closer than 200 ms would measure that
            Thread.sleep(CLIENT_LIMIT_GAP_MS);
        }
        printLatency("config_notify", ms);
    }

    private static void awaitReadable(ConfigService c, String dataId, String content) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!content.equals(c.getConfig(dataId, "BENCH", 3000))) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException(dataId + " not readable within 10 s");
            }
            Thread.sleep(20);
        }
    }

    /** Register on one client, until a subscriber on another hears an event listing the instance. */
    private static void namingEventLatency(String server, int rounds) throws Exception {
        NamingService writer = NamingFactory.createNamingService(props(server));
        NamingService watcher = NamingFactory.createNamingService(props(server));
        String service = "bench-event-" + System.nanoTime();
        BlockingQueue<List<Instance>> events = new LinkedBlockingQueue<>();
        watcher.subscribe(service, (Event e) -> {
            if (e instanceof NamingEvent ne) {
                events.add(ne.getInstances());
            }
        });
        long[] ms = new long[rounds];
        int warm = Math.min(20, rounds / 5);
        for (int i = -warm; i < rounds; i++) {
            int port = 10_000 + i + warm;
            long t0 = System.nanoTime();
            writer.registerInstance(service, "127.0.0.1", port);
            while (true) {
                List<Instance> got = events.poll(10, TimeUnit.SECONDS);
                if (got == null) {
                    throw new IllegalStateException("no event for port " + port + " within 10 s");
                }
                if (got.stream().anyMatch(x -> x.getPort() == port)) {
                    break;
                }
            }
            if (i >= 0) {
                ms[i] = System.nanoTime() - t0;
            }
            Thread.sleep(20);
        }
        printLatency("naming_event", ms);
    }

    private static void printLatency(String name, long[] nanos) {
        long[] s = nanos.clone();
        Arrays.sort(s);
        System.out.printf("%s_p50_ms %.1f%n", name, s[s.length / 2] / 1e6);
        System.out.printf("%s_p99_ms %.1f%n", name, s[(int) Math.ceil(s.length * 0.99) - 1] / 1e6);
        System.out.printf("%s_max_ms %.1f%n", name, s[s.length - 1] / 1e6);
    }
}
