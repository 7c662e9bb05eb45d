package io.lodestar.naming.bench;

import io.lodestar.naming.ephemeral.EphemeralRegistry;
import io.lodestar.naming.ephemeral.Mutation;
import io.lodestar.naming.model.Instance;
import io.lodestar.naming.model.ServiceKey;
import io.lodestar.naming.service.NamingOptions;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.time.Clock;
import java.util.HashMap;
import java.util.Map;

/**
 * Heap bytes per ephemeral instance held by the registry: registers {@code --instances} instances
 * (default 100,000) spread over {@code --services} services (default 1,000) the way the HTTP layer
 * builds them (fresh strings per request, a small metadata map on every tenth), and compares the
 * heap used after a full collection before and after. Run with a fixed heap so the collector is
 * steady: {@code naming-service/bench/run.sh}.
 */
public final class EphemeralFootprint {
    private EphemeralFootprint() {}

    public static void main(String[] args) throws Exception {
        int instances = 100_000;
        int services = 1_000;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--instances" -> instances = Integer.parseInt(args[++i]);
                case "--services" -> services = Integer.parseInt(args[++i]);
                default -> throw new IllegalArgumentException("unknown option " + args[i]);
            }
        }
        EphemeralRegistry registry = new EphemeralRegistry(Clock.systemUTC(), NamingOptionsAccess.rules(), s -> {});
        ServiceKey[] keys = new ServiceKey[services];
        for (int s = 0; s < services; s++) {
            keys[s] = ServiceKey.of("public", "DEFAULT_GROUP", "svc-" + s);
            registry.apply(keys[s], new Mutation.Register(instance(keys[s], 0)));
            registry.apply(keys[s], new Mutation.Deregister(instance(keys[s], 0).address()));
        }
        long before = usedAfterGc();
        for (int i = 1; i <= instances; i++) {
            ServiceKey key = keys[i % services];
            registry.apply(key, new Mutation.Register(instance(key, i)));
        }
        long after = usedAfterGc();
        if (registry.instanceCount() != instances) {
            throw new AssertionError("registered " + registry.instanceCount());
        }
        System.out.printf(
                "{\"instances\":%d,\"services\":%d,\"heap_bytes\":%d,\"bytes_per_instance\":%.1f}%n",
                instances, services, after - before, (after - before) / (double) instances);
    }

    private static Instance instance(ServiceKey service, int n) {
        // new String(...) as a request parser would produce: nothing shared with a constant pool
        String ip = new String("10." + (n >> 16 & 255) + "." + (n >> 8 & 255) + "." + (n & 255));
        Map<String, String> metadata = new HashMap<>();
        if (n % 10 == 0) {
            metadata.put(new String("version"), new String("1.2." + n % 7));
        }
        return new Instance(null, ip, 8080, 1.0, true, true, true, new String("DEFAULT"), metadata)
                .withDefaultId(service)
                .withoutDefaultId(service); // as NamingService stores it
    }

    private static long usedAfterGc() throws InterruptedException {
        MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
        long used = Long.MAX_VALUE;
        for (int i = 0; i < 5; i++) { // settle: the last collections find nothing more to free
            System.gc();
            Thread.sleep(100);
            used = Math.min(used, memory.getHeapMemoryUsage().getUsed());
        }
        return used;
    }

    /** The registry's default expiry rules, as the naming service builds them. */
    static final class NamingOptionsAccess {
        static io.lodestar.naming.ephemeral.ExpiryRules rules() {
            NamingOptions o = NamingOptions.DEFAULT;
            return new io.lodestar.naming.ephemeral.ExpiryRules(
                    o.heartbeatCheckInterval().toMillis(), o.emptyServiceTtl().toMillis());
        }
    }
}
