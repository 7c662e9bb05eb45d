package io.lodestar.naming.service;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lodestar.error.Failures;
import io.lodestar.error.LimitExceededException;
import io.lodestar.kv.raft.RaftKvStore;
import io.lodestar.kv.testing.OneNodeStore;
import io.lodestar.naming.NamingKeyspaces;
import io.lodestar.naming.NamingQuotas;
import io.lodestar.naming.model.Instance;
import io.lodestar.naming.model.ServiceKey;
import io.lodestar.naming.model.ServiceSpec;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The registry's quotas: a registration or service write that would pass one is refused naming
 * it, with nothing written; one at an address already registered replaces and passes; removing an
 * instance or a service frees room; the ephemeral quotas are counted by the owner and tell the
 * node's refusal count.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class NamingQuotasTest {
    private static final int SERVICES = 2;
    private static final int INSTANCES = 2;
    private static final int EPHEMERAL = 3;
    private static final int EPHEMERAL_TOTAL = 5;

    @TempDir
    static Path dir;

    static RaftKvStore store;
    static final AtomicInteger NAMESPACES = new AtomicInteger();

    final List<String> refused = new CopyOnWriteArrayList<>();
    NamingService naming;
    String ns;

    @BeforeAll
    static void startStore() throws Exception {
        store = OneNodeStore.start(dir, NamingKeyspaces.ALL, NamingKeyspaces.COUNTED);
    }

    @AfterAll
    static void closeStore() {
        store.close();
    }

    @BeforeEach
    void startNaming() {
        NamingQuotas quotas = new NamingQuotas(SERVICES, INSTANCES, EPHEMERAL, EPHEMERAL_TOTAL, refused::add);
        naming = new NamingService(store, NamingOptions.DEFAULT.withQuotas(quotas), Clock.systemUTC(), false);
        ns = "quota-" + NAMESPACES.incrementAndGet();
    }

    @AfterEach
    void closeNaming() {
        naming.close();
    }

    private ServiceKey service(String name) {
        return new ServiceKey(ns, "G", name);
    }

    private static <T> T await(CompletableFuture<T> f) throws Exception {
        return f.get(20, TimeUnit.SECONDS);
    }

    private static LimitExceededException refusal(CompletableFuture<?> f) {
        ExecutionException e = assertThrows(ExecutionException.class, () -> await(f));
        return assertInstanceOf(LimitExceededException.class, Failures.cause(e));
    }

    private static Instance persistent(String ip) {
        return Instance.of(ip, 80).withEphemeral(false);
    }

    @Test
    void aPersistentInstancePastTheServicesQuotaIsRefusedNamingItAndNothingIsWritten() throws Exception {
        await(naming.register(service("a"), persistent("10.0.0.1")));
        await(naming.register(service("b"), persistent("10.0.0.1")));
        long revision = store.revision();

        LimitExceededException e = refusal(naming.register(service("c"), persistent("10.0.0.1")));

        assertEquals(NamingQuotas.SERVICES_PER_NAMESPACE_LIMIT, e.limit());
        assertTrue(e.getMessage().contains("namespace '" + ns + "'"), e.getMessage());
        assertFalse(naming.exists(service("c")), "neither the instance nor the definition it implies");
        assertEquals(revision, store.revision());
        assertTrue(refused.isEmpty(), "the store's refusals are counted by the store's listener");

        await(naming.register(service("a"), persistent("10.0.0.2")));
        await(naming.register(new ServiceKey(ns + "-other", "G", "c"), persistent("10.0.0.1")));
    }

    @Test
    void theServiceApiMeetsTheServicesQuotaAndADeleteFreesRoom() throws Exception {
        await(naming.createService(service("a"), ServiceSpec.DEFAULT));
        await(naming.createService(service("b"), ServiceSpec.DEFAULT));

        assertEquals(
                NamingQuotas.SERVICES_PER_NAMESPACE_LIMIT,
                refusal(naming.createService(service("c"), ServiceSpec.DEFAULT)).limit());
        await(naming.updateService(service("a"), 0.5, Map.of("k", "v"))); // an edit replaces

        await(naming.deleteService(service("b")));
        await(naming.createService(service("c"), ServiceSpec.DEFAULT));
    }

    @Test
    void aPersistentInstancePastTheInstancesQuotaIsRefusedUntilOneIsRemoved() throws Exception {
        ServiceKey svc = service("orders");
        await(naming.register(svc, persistent("10.0.0.1")));
        await(naming.register(svc, persistent("10.0.0.2")));

        LimitExceededException e = refusal(naming.register(svc, persistent("10.0.0.3")));
        assertEquals(NamingQuotas.INSTANCES_PER_SERVICE_LIMIT, e.limit());
        assertTrue(e.getMessage().contains("(" + INSTANCES + ")"), e.getMessage());
        assertFalse(naming.instance(svc, "DEFAULT", "10.0.0.3", 80).isPresent());

        await(naming.register(svc, persistent("10.0.0.2").withWeight(3))); // the same address: replaced
        assertEquals(
                3.0,
                naming.instance(svc, "DEFAULT", "10.0.0.2", 80).orElseThrow().weight());

        await(naming.deregister(svc, "DEFAULT", "10.0.0.1", 80, false));
        await(naming.register(svc, persistent("10.0.0.3")));
        assertTrue(naming.instance(svc, "DEFAULT", "10.0.0.3", 80).isPresent());
    }

    @Test
    void anEphemeralInstancePastItsServicesQuotaIsRefusedByTheOwnerAndCounted() throws Exception {
        ServiceKey svc = service("web");
        for (int i = 1; i <= EPHEMERAL; i++) {
            await(naming.register(svc, Instance.of("10.0.1." + i, 80)));
        }

        LimitExceededException e = refusal(naming.register(svc, Instance.of("10.0.1.9", 80)));
        assertEquals(NamingQuotas.EPHEMERAL_PER_SERVICE_LIMIT, e.limit());
        assertEquals(List.of(NamingQuotas.EPHEMERAL_PER_SERVICE_LIMIT), refused);
        assertFalse(naming.instance(svc, "DEFAULT", "10.0.1.9", 80).isPresent());

        await(naming.register(svc, Instance.of("10.0.1.1", 80).withWeight(2))); // re-registration
        await(naming.deregister(svc, "DEFAULT", "10.0.1.2", 80, true));
        await(naming.register(svc, Instance.of("10.0.1.9", 80)));
    }

    @Test
    void theNodesEphemeralQuotaCountsEveryService() throws Exception {
        int held = naming.counts().ephemeralInstances();
        for (int i = held; i < EPHEMERAL_TOTAL; i++) {
            await(naming.register(service("s" + i), Instance.of("10.0.2.1", 80)));
        }

        LimitExceededException e = refusal(naming.register(service("one-more"), Instance.of("10.0.2.1", 80)));
        assertEquals(NamingQuotas.EPHEMERAL_INSTANCES_LIMIT, e.limit());
        assertEquals(EPHEMERAL_TOTAL, naming.counts().ephemeralInstances());
    }
}
