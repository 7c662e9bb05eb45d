package io.lodestar.naming.service;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lodestar.kv.raft.RaftKvStore;
import io.lodestar.kv.testing.FreePorts;
import io.lodestar.kv.testing.OneNodeStore;
import io.lodestar.naming.NamingKeyspaces;
import io.lodestar.naming.ServicePage;
import io.lodestar.naming.model.CheckerType;
import io.lodestar.naming.model.HealthCheckSettings;
import io.lodestar.naming.model.Instance;
import io.lodestar.naming.model.Service;
import io.lodestar.naming.model.ServiceKey;
import io.lodestar.naming.model.ServiceSpec;
import java.nio.file.Path;
import java.time.Clock;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** What the store holds outlives the process: a store closed and started again on the same directory. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class PersistentRestartTest {
    @TempDir
    Path dir;

    static Map<String, String> ordered(String... keysAndValues) {
        Map<String, String> m = new LinkedHashMap<>();
        for (int i = 0; i < keysAndValues.length; i += 2) {
            m.put(keysAndValues[i], keysAndValues[i + 1]);
        }
        return m;
    }

    @Test
    void persistentInstancesAndServiceDefinitionsSurviveARestartAndEphemeralOnesDoNot() throws Exception {
        ServiceKey db = new ServiceKey("prod", "DATA", "mysql");
        ServiceKey web = new ServiceKey("prod", "DATA", "web");
        ServiceSpec spec = new ServiceSpec(
                0.4,
                Map.of("owner", "dba"),
                Map.of("MAIN", new HealthCheckSettings(CheckerType.NONE, "/", 3306, false, "2xx")));
        Instance primary = Instance.of("127.1.0.1", 3306)
                .withEphemeral(false)
                .withCluster("MAIN")
                .withWeight(3)
                .withMetadata(ordered("role", "primary", "zone", "a"));

        int port = FreePorts.next();
        RaftKvStore store = OneNodeStore.start(dir, port, NamingKeyspaces.ALL, NamingKeyspaces.COUNTED);
        try (NamingService naming = new NamingService(store, NamingOptions.DEFAULT, Clock.systemUTC())) {
            naming.createService(db, spec).get(20, TimeUnit.SECONDS);
            naming.register(db, primary).get(20, TimeUnit.SECONDS);
            naming.register(
                            db,
                            Instance.of("127.1.0.2", 3306).withEphemeral(false).withCluster("MAIN"))
                    .get(20, TimeUnit.SECONDS);
            naming.setHealth(db, "MAIN", "127.1.0.2", 3306, false).get(20, TimeUnit.SECONDS);
            naming.register(web, Instance.of("127.2.0.1", 80)).get(20, TimeUnit.SECONDS);
        } finally {
            store.close();
        }

        RaftKvStore again = OneNodeStore.start(dir, port, NamingKeyspaces.ALL, NamingKeyspaces.COUNTED);
        try (NamingService naming = new NamingService(again, NamingOptions.DEFAULT, Clock.systemUTC())) {
            Instance p = naming.instance(db, "MAIN", "127.1.0.1", 3306).orElseThrow();
            assertEquals(primary.withDefaultId(db), p);
            assertEquals(List.of("role", "zone"), List.copyOf(p.metadata().keySet()), "metadata order survives");
            assertFalse(
                    naming.instance(db, "MAIN", "127.1.0.2", 3306).orElseThrow().healthy(), "a health flip is durable");

            Service s = naming.service(db).orElseThrow();
            assertEquals(spec, s.spec());
            assertEquals(2, s.persistentInstances());
            assertEquals(1, s.healthyInstances());
            assertEquals(2, naming.list(db, Set.of("MAIN"), false).hosts().size());
            assertEquals(2, naming.persistentInstances().size());

            assertTrue(naming.service(web).isEmpty(), "ephemeral instances live in memory only");
            assertEquals(new ServicePage(1, List.of("mysql")), naming.listServices("prod", "DATA", 1, 10));
        } finally {
            again.close();
        }
    }
}
