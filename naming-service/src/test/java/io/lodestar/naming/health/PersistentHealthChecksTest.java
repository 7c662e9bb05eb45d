package io.lodestar.naming.health;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lodestar.kv.raft.RaftKvStore;
import io.lodestar.kv.testing.Await;
import io.lodestar.kv.testing.OneNodeStore;
import io.lodestar.naming.NamingKeyspaces;
import io.lodestar.naming.model.Instance;
import io.lodestar.naming.model.ServiceKey;
import io.lodestar.naming.service.NamingService;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The registry's persistent instances probed for real: a TCP listener closed and reopened. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class PersistentHealthChecksTest {
    private static final ProbeScope LOOPBACK_ONLY = ProbeScope.parse("127.0.0.0/8");
    private static final Duration WAIT = Duration.ofSeconds(20);

    @TempDir
    Path dir;

    @Test
    void aPersistentInstanceTurnsUnhealthyWhenItsPortClosesAndHealthyWhenItReopensOnlyOnTheLeader() throws Exception {
        ServiceKey service = ServiceKey.of("public", "DEFAULT_GROUP", "probed");
        AtomicBoolean leader = new AtomicBoolean(true);
        try (RaftKvStore store = OneNodeStore.start(dir, NamingKeyspaces.ALL, NamingKeyspaces.COUNTED);
                NamingService naming = new NamingService(store)) {
            ServerSocket listener = listen(0);
            int port = listener.getLocalPort();
            naming.register(service, new Instance(null, "127.0.0.1", port, 1, true, true, false, "DEFAULT", Map.of()))
                    .get(10, TimeUnit.SECONDS);
            try (PersistentHealthChecks checks = PersistentHealthChecks.start(
                    naming,
                    leader::get,
                    LOOPBACK_ONLY,
                    Duration.ofMillis(50),
                    Duration.ofMillis(20),
                    Duration.ofMillis(100))) {
                listener.close();
                Await.until(WAIT, "unhealthy after the port closed", () -> !healthy(naming, service));

                leader.set(false); // a follower probes nothing: reopening changes nothing now
                listener = listen(port);
                Await.holdsFor(Duration.ofMillis(800), "no flip by a non-leader", () -> !healthy(naming, service));
                leader.set(true);
                Await.until(WAIT, "healthy again once the port reopened", () -> healthy(naming, service));
                assertEquals(1, naming.list(service, Set.of(), false).hosts().size(), "probes never delete");
            } finally {
                listener.close();
            }
        }
    }

    @Test
    void theInstancesAreReadFromTheStoreAgainOnlyAfterTheyChanged() throws Exception {
        ServiceKey service = ServiceKey.of("public", "DEFAULT_GROUP", "idle");
        try (RaftKvStore store = OneNodeStore.start(dir, NamingKeyspaces.ALL, NamingKeyspaces.COUNTED);
                NamingService naming = new NamingService(store);
                ServerSocket open = listen(0)) {
            naming.register(
                            service,
                            new Instance(
                                    null, "127.0.0.1", open.getLocalPort(), 1, true, true, false, "DEFAULT", Map.of()))
                    .get(10, TimeUnit.SECONDS);
            try (PersistentHealthChecks checks = PersistentHealthChecks.start(
                    naming,
                    () -> true,
                    LOOPBACK_ONLY,
                    Duration.ofMillis(50),
                    Duration.ofMillis(20),
                    Duration.ofMillis(100))) {
                Await.until(WAIT, "a first probe", () -> checks.probesStarted() >= 1);
                long reads = checks.targetReads();
                long probes = checks.probesStarted();
                // five probe intervals, ten refresh periods, nothing changed: no read
                Await.until(WAIT, "five more probes", () -> checks.probesStarted() >= probes + 5);
                assertEquals(reads, checks.targetReads(), "reads of an unchanged registry");

                ServerSocket closed = listen(0);
                int port = closed.getLocalPort();
                closed.close();
                naming.register(
                                service,
                                new Instance(null, "127.0.0.1", port, 1, true, true, false, "DEFAULT", Map.of()))
                        .get(10, TimeUnit.SECONDS);
                Await.until(
                        WAIT,
                        "the new instance read and probed",
                        () -> naming.instance(service, "DEFAULT", "127.0.0.1", port)
                                .map(i -> !i.healthy())
                                .orElse(false));
                assertTrue(checks.targetReads() > reads, "read again after the registration");
            }
        }
    }

    private static ServerSocket listen(int port) throws Exception {
        ServerSocket s = new ServerSocket();
        s.setReuseAddress(true);
        s.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
        return s;
    }

    private static boolean healthy(NamingService naming, ServiceKey service) {
        return naming.instance(
                        service,
                        "DEFAULT",
                        "127.0.0.1",
                        naming.list(service, Set.of(), false).hosts().get(0).port())
                .orElseThrow()
                .healthy();
    }
}
