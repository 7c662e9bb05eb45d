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
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;

/**
 * What a nacos-client 2.x application feels of a server, through the unmodified client over gRPC,
 * the same against Lodestar and Nacos: how soon a listener hears a config change and a subscriber a
 * registration, and how many registrations and config reads a few clients get through per second.
 * Prints one {@code name value} line per figure.
 *
 * <pre>
 * GrpcClientBench notify|naming-event --server H:P [--rounds N]
 * GrpcClientBench register|get --server H:P [--clients C] [--seconds S] [--warmup S]
 * </pre>
 */
public final class GrpcClientBench {
    private GrpcClientBench() {}

    public static void main(String[] args) throws Exception {
        if (args.length == 0 || args[0].startsWith("-")) {
            System.out.println("usage: GrpcClientBench notify|naming-event|register|get --server H:P [--rounds N]"
                    + " [--clients C] [--seconds S] [--warmup S]");
            return;
        }
        String mode = args[0];
        String server = option(args, "--server", "127.0.0.1:8848");
        int rounds = Integer.parseInt(option(args, "--rounds", "200"));
        int clients = Integer.parseInt(option(args, "--clients", "8"));
        int seconds = Integer.parseInt(option(args, "--seconds", "10"));
        int warmup = Integer.parseInt(option(args, "--warmup", "5"));
        switch (mode) {
            case "notify" -> notifyLatency(server, rounds);
            case "naming-event" -> namingEventLatency(server, rounds);
            case "register" -> throughput("register_per_s", server, clients, warmup, seconds, registerLoop(server));
            case "get" -> throughput("config_get_per_s", server, clients, warmup, seconds, getLoop(server));
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
            Thread.sleep(20); // one change at a time, as a person publishing would
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

    /** One client's loop: does one call, as a client of this kind would. */
    private interface Call {
        void run(int client, long n) throws Exception;
    }

    private interface Loop {
        Call open(int client) throws Exception;
    }

    private static Loop registerLoop(String server) {
        long stamp = System.nanoTime();
        return client -> {
            NamingService ns = NamingFactory.createNamingService(props(server));
            // a new service each call: a client holds one instance per service, so each is a new registration
            return (c, n) -> ns.registerInstance("bench-reg-" + stamp + "-" + c + "-" + n, "127.0.0.1", 20_000);
        };
    }

    private static Loop getLoop(String server) throws Exception {
        ConfigService setup = NacosFactory.createConfigService(props(server));
        String dataId = "bench-get";
        setup.publishConfig(dataId, "BENCH", "x".repeat(512));
        awaitReadable(setup, dataId, "x".repeat(512));
        return client -> {
            ConfigService cs = NacosFactory.createConfigService(props(server));
            return (c, n) -> {
                if (cs.getConfig(dataId, "BENCH", 3000) == null) {
                    throw new IllegalStateException("no content");
                }
            };
        };
    }

    private static void throughput(String name, String server, int clients, int warmup, int seconds, Loop loop)
            throws Exception {
        List<Call> calls = new ArrayList<>();
        for (int c = 0; c < clients; c++) {
            calls.add(loop.open(c));
        }
        LongAdder done = new LongAdder();
        LongAdder failed = new LongAdder();
        AtomicBoolean counting = new AtomicBoolean();
        AtomicBoolean stop = new AtomicBoolean();
        List<Thread> threads = new ArrayList<>();
        for (int c = 0; c < clients; c++) {
            int client = c;
            Thread t = new Thread(() -> {
                long n = 0;
                while (!stop.get()) {
                    try {
                        calls.get(client).run(client, n++);
                        if (counting.get()) {
                            done.increment();
                        }
                    } catch (Exception e) {
                        failed.increment();
                    }
                }
            });
            t.start();
            threads.add(t);
        }
        Thread.sleep(warmup * 1000L);
        counting.set(true);
        long t0 = System.nanoTime();
        Thread.sleep(seconds * 1000L);
        counting.set(false);
        double elapsed = (System.nanoTime() - t0) / 1e9;
        stop.set(true);
        for (Thread t : threads) {
            t.join(10_000);
        }
        System.out.printf("%s %.0f%n", name, done.sum() / elapsed);
        System.out.printf("%s_failed %d%n", name, failed.sum());
    }
}
