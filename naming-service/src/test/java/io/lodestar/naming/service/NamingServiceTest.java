package io.lodestar.naming.service;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lodestar.error.InvalidRequestException;
import io.lodestar.kv.KvStore;
import io.lodestar.kv.raft.RaftKvStore;
import io.lodestar.kv.testing.LaggingReplica;
import io.lodestar.kv.testing.OneNodeStore;
import io.lodestar.naming.BeatResult;
import io.lodestar.naming.HealthNotSettableException;
import io.lodestar.naming.InstanceNotFoundException;
import io.lodestar.naming.MutableClock;
import io.lodestar.naming.NamingCounts;
import io.lodestar.naming.NamingKeyspaces;
import io.lodestar.naming.PersistentInstance;
import io.lodestar.naming.ServiceExistsException;
import io.lodestar.naming.ServiceNotEmptyException;
import io.lodestar.naming.ServiceNotFoundException;
import io.lodestar.naming.ServicePage;
import io.lodestar.naming.model.BeatInfo;
import io.lodestar.naming.model.CheckerType;
import io.lodestar.naming.model.HealthCheckSettings;
import io.lodestar.naming.model.HeartbeatSettings;
import io.lodestar.naming.model.Instance;
import io.lodestar.naming.model.InstancePatch;
import io.lodestar.naming.model.Service;
import io.lodestar.naming.model.ServiceKey;
import io.lodestar.naming.model.ServiceSpec;
import io.lodestar.naming.query.ListVersion;
import io.lodestar.naming.query.ServiceView;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
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
 * The registry facade against a real one-node Raft store on RocksDB. Each test works in its own
 * namespace; time is a clock the test moves, and expiry runs only when the test asks.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class NamingServiceTest {
    @TempDir
    static Path dir;

    static RaftKvStore store;
    static final AtomicInteger NAMESPACES = new AtomicInteger();

    MutableClock clock = new MutableClock(1_700_000_000_000L);
    NamingService naming;
    String ns;
    ServiceKey svc;

    @BeforeAll
    static void startStore() throws Exception {
        store = OneNodeStore.start(dir, NamingKeyspaces.ALL, NamingKeyspaces.COUNTED);
    }

    @AfterAll
    static void closeStore() {
        if (store != null) {
            store.close();
        }
    }

    @BeforeEach
    void startNaming() {
        naming = new NamingService(store, NamingOptions.DEFAULT, clock, false);
        ns = "ns-" + NAMESPACES.incrementAndGet();
        svc = new ServiceKey(ns, "G", "orders");
    }

    @AfterEach
    void closeNaming() {
        naming.close();
    }

    static <T> T await(CompletableFuture<T> f) throws Exception {
        return f.get(20, TimeUnit.SECONDS);
    }

    static Throwable failure(CompletableFuture<?> f) {
        ExecutionException e = assertThrows(ExecutionException.class, () -> f.get(20, TimeUnit.SECONDS));
        return e.getCause();
    }

    static Instance ephemeral(String ip, int port) {
        return Instance.of(ip, port);
    }

    static Instance persistent(String ip, int port) {
        return Instance.of(ip, port).withEphemeral(false);
    }

    List<String> hosts(ServiceKey service) {
        return naming.list(service, Set.of(), false).hosts().stream()
                .map(i -> i.ip() + ":" + i.port())
                .toList();
    }

    // ------------------------------------------------------------ register, deregister, edit

    @Test
    void registeredInstancesOfBothKindsAreListedWithDefaultIds() throws Exception {
        await(naming.register(svc, ephemeral("127.0.0.1", 80)));
        ServiceKey other = new ServiceKey(ns, "G", "stock");
        await(naming.register(other, persistent("127.0.0.2", 81).withCluster("C1")));

        ServiceView view = naming.list(svc, Set.of(), false);
        assertEquals("G@@orders", view.name());
        assertEquals(
                List.of("127.0.0.1#80#DEFAULT#G@@orders"),
                view.hosts().stream().map(i -> i.idIn(view.service())).toList());
        assertTrue(view.hosts().get(0).ephemeral());
        Instance p = naming.instance(other, "C1", "127.0.0.2", 81).orElseThrow();
        assertFalse(p.ephemeral());
        assertEquals("127.0.0.2#81#C1#G@@stock", p.instanceId());
        assertEquals(view.lastRefTime(), clock.millis());
    }

    @Test
    void registeringTheSameAddressAgainReplacesTheInstance() throws Exception {
        await(naming.register(svc, ephemeral("127.0.0.1", 80).withWeight(1)));
        await(naming.register(svc, ephemeral("127.0.0.1", 80).withWeight(7).withMetadata(Map.of("v", "2"))));
        ServiceKey p = new ServiceKey(ns, "G", "p");
        await(naming.register(p, persistent("127.0.0.1", 80)));
        await(naming.register(p, persistent("127.0.0.1", 80).withEnabled(false)));

        List<Instance> listed = naming.list(svc, Set.of(), false).hosts();
        assertEquals(1, listed.size());
        assertEquals(7, listed.get(0).weight());
        assertEquals(Map.of("v", "2"), listed.get(0).metadata());
        assertFalse(naming.instance(p, null, "127.0.0.1", 80).orElseThrow().enabled());
    }

    @Test
    void registeringAPersistentInstanceAgainKeepsTheHealthItsProbeFound() throws Exception {
        ServiceKey manual = new ServiceKey(ns, "G", "manual");
        await(naming.register(svc, persistent("127.0.0.1", 80)));
        await(naming.register(manual, persistent("127.0.0.1", 80)));
        await(naming.updateCluster(manual, Instance.DEFAULT_CLUSTER, HealthCheckSettings.of(CheckerType.NONE)));
        assertTrue(await(naming.setPersistentHealth(svc, null, "127.0.0.1", 80, false)), "the probe found it dead");
        await(naming.setHealth(manual, null, "127.0.0.1", 80, false));

        await(naming.register(svc, persistent("127.0.0.1", 80).withWeight(4)));
        await(naming.register(manual, persistent("127.0.0.1", 80).withWeight(4)));
        Instance probed = naming.instance(svc, null, "127.0.0.1", 80).orElseThrow();
        assertEquals(4, probed.weight(), "the rest of the registration is taken");
        assertFalse(probed.healthy(), "a registration does not revive what the probe found dead");
        assertTrue(
                naming.instance(manual, null, "127.0.0.1", 80).orElseThrow().healthy(),
                "without a probe, the registration says how it is");
    }

    @Test
    void weightIsClampedOnRegistration() throws Exception {
        await(naming.register(svc, ephemeral("127.0.0.1", 80).withWeight(50_000)));
        await(naming.register(svc, ephemeral("127.0.0.2", 80).withWeight(0.0001)));
        assertEquals(
                10_000,
                naming.instance(svc, null, "127.0.0.1", 80).orElseThrow().weight());
        assertEquals(
                0.01, naming.instance(svc, null, "127.0.0.2", 80).orElseThrow().weight());
    }

    @Test
    void deregisterRemovesEitherKindAndIsIdempotent() throws Exception {
        ServiceKey p = new ServiceKey(ns, "G", "p");
        await(naming.register(svc, ephemeral("127.0.0.1", 80)));
        await(naming.register(p, persistent("127.0.0.2", 80)));

        await(naming.deregister(svc, null, "127.0.0.1", 80, true));
        await(naming.deregister(svc, null, "127.0.0.1", 80, true));
        await(naming.deregister(p, "DEFAULT", "127.0.0.2", 80, true)); // wrong kind named: still found and removed
        await(naming.deregister(p, "DEFAULT", "127.0.0.2", 80, false));
        await(naming.deregister(new ServiceKey(ns, "G", "never"), null, "127.0.0.9", 1, false));

        assertTrue(hosts(svc).isEmpty());
        assertTrue(hosts(p).isEmpty());
        assertTrue(naming.service(p).isPresent(), "the service outlives its instances");
    }

    @Test
    void updateMergesMetadataAndOverridesWeightAndEnabled() throws Exception {
        await(naming.register(svc, ephemeral("127.0.0.1", 80).withMetadata(Map.of("a", "1", "b", "1"))));
        await(naming.update(
                svc,
                ephemeral("127.0.0.1", 80)
                        .withWeight(3)
                        .withEnabled(false)
                        .withHealthy(false)
                        .withMetadata(Map.of("b", "2", "c", "3"))));
        Instance i = naming.instance(svc, null, "127.0.0.1", 80).orElseThrow();
        assertEquals(Map.of("a", "1", "b", "2", "c", "3"), i.metadata());
        assertEquals(3, i.weight());
        assertFalse(i.enabled());
        assertTrue(i.healthy(), "an ephemeral instance's health follows its beats, not a PUT");
        assertEquals("127.0.0.1#80#DEFAULT#G@@orders", i.idIn(svc), "the id is kept");
    }

    @Test
    void updateTakesHealthOfAPersistentInstanceOnlyWhenItsClusterIsNotProbed() throws Exception {
        ServiceKey probed = new ServiceKey(ns, "G", "probed");
        ServiceKey manual = new ServiceKey(ns, "G", "manual");
        await(naming.register(probed, persistent("127.0.0.1", 80)));
        await(naming.createService(
                manual, new ServiceSpec(0, Map.of(), Map.of("DEFAULT", HealthCheckSettings.of(CheckerType.NONE)))));
        await(naming.register(manual, persistent("127.0.0.1", 80)));

        await(naming.update(
                probed, persistent("127.0.0.1", 80).withHealthy(false).withWeight(2)));
        await(naming.update(
                manual, persistent("127.0.0.1", 80).withHealthy(false).withWeight(2)));
        Instance p = naming.instance(probed, null, "127.0.0.1", 80).orElseThrow();
        Instance m = naming.instance(manual, null, "127.0.0.1", 80).orElseThrow();
        assertTrue(p.healthy());
        assertEquals(2, p.weight());
        assertFalse(m.healthy());
        assertFalse(p.ephemeral(), "an edit never changes the kind");
    }

    @Test
    void patchChangesOnlyTheGivenFields() throws Exception {
        ServiceKey p = new ServiceKey(ns, "G", "p");
        await(naming.register(svc, ephemeral("127.0.0.1", 80).withWeight(2).withMetadata(Map.of("a", "1"))));
        await(naming.register(p, persistent("127.0.0.1", 80).withWeight(2).withMetadata(Map.of("a", "1"))));

        await(naming.patch(svc, null, "127.0.0.1", 80, InstancePatch.NONE.withEnabled(false)));
        await(naming.patch(p, null, "127.0.0.1", 80, InstancePatch.NONE.withMetadata(Map.of("z", "9"))));
        Instance e = naming.instance(svc, null, "127.0.0.1", 80).orElseThrow();
        assertFalse(e.enabled());
        assertEquals(2, e.weight());
        assertEquals(Map.of("a", "1"), e.metadata());
        Instance q = naming.instance(p, null, "127.0.0.1", 80).orElseThrow();
        assertTrue(q.enabled());
        assertEquals(Map.of("z", "9"), q.metadata(), "patched metadata replaces the old whole");
    }

    @Test
    void editingAnUnknownInstanceFailsWithInstanceNotFound() {
        assertInstanceOf(InstanceNotFoundException.class, failure(naming.update(svc, ephemeral("127.0.0.1", 80))));
        assertInstanceOf(
                InstanceNotFoundException.class,
                failure(naming.patch(svc, null, "127.0.0.1", 80, InstancePatch.NONE.withWeight(3))));
    }

    @Test
    void oneServiceHoldsOneKindOfInstance() throws Exception {
        ServiceKey p = new ServiceKey(ns, "G", "p");
        await(naming.register(svc, ephemeral("127.0.0.1", 80)));
        await(naming.register(p, persistent("127.0.0.1", 80)));

        InvalidRequestException sameAddress = assertInstanceOf(
                InvalidRequestException.class, failure(naming.register(svc, persistent("127.0.0.1", 80))));
        assertEquals("ephemeral", sameAddress.field());
        assertInstanceOf(InvalidRequestException.class, failure(naming.register(svc, persistent("127.0.0.2", 80))));
        assertInstanceOf(InvalidRequestException.class, failure(naming.register(p, ephemeral("127.0.0.1", 80))));
        assertInstanceOf(InvalidRequestException.class, failure(naming.register(p, ephemeral("127.0.0.3", 80))));
        assertThrows(
                InvalidRequestException.class,
                () -> naming.beat(
                        p,
                        null,
                        "127.0.0.4",
                        80,
                        Optional.of(new BeatInfo("127.0.0.4", 80, 1, null, Map.of(), "G@@p"))));

        assertEquals(List.of("127.0.0.1:80"), hosts(svc));
        assertEquals(List.of("127.0.0.1:80"), hosts(p));
        assertTrue(naming.list(p, Set.of(), false).hosts().stream().noneMatch(Instance::ephemeral));

        await(naming.deregister(p, null, "127.0.0.1", 80, false));
        await(naming.register(p, ephemeral("127.0.0.1", 80)));
        assertTrue(
                naming.instance(p, null, "127.0.0.1", 80).orElseThrow().ephemeral(),
                "an emptied service takes either kind");
    }

    // ------------------------------------------------------------ list

    @Test
    void listFiltersClustersHidesDisabledAndHonoursHealthyOnly() throws Exception {
        await(naming.register(svc, ephemeral("127.0.0.1", 80).withCluster("A")));
        await(naming.register(svc, ephemeral("127.0.0.2", 80).withCluster("B")));
        await(naming.register(svc, ephemeral("127.0.0.3", 80).withCluster("A").withEnabled(false)));
        await(naming.register(svc, ephemeral("127.0.0.4", 80).withCluster("A").withHealthy(false)));
        await(naming.register(svc, ephemeral("127.0.0.5", 80).withCluster("A")));

        assertEquals(List.of("127.0.0.1:80", "127.0.0.2:80", "127.0.0.4:80", "127.0.0.5:80"), hosts(svc));
        ServiceView a = naming.list(svc, new LinkedHashSet<>(List.of("A")), true);
        assertEquals(
                List.of("127.0.0.1", "127.0.0.5"),
                a.hosts().stream().map(Instance::ip).toList());
        assertEquals("A", a.clusters());
        assertFalse(a.reachProtectionThreshold());
        assertEquals(
                List.of("127.0.0.2"),
                naming.list(svc, Set.of("B"), true).hosts().stream()
                        .map(Instance::ip)
                        .toList());
        assertTrue(naming.list(svc, Set.of("NOPE"), false).hosts().isEmpty());
        InvalidRequestException bad =
                assertThrows(InvalidRequestException.class, () -> naming.list(svc, Set.of("a b"), false));
        assertEquals("clusters", bad.field());
    }

    @Test
    void reachingTheProtectThresholdListsEveryInstanceAsHealthy() throws Exception {
        await(naming.register(svc, ephemeral("127.0.0.1", 80)));
        await(naming.register(svc, ephemeral("127.0.0.2", 80).withHealthy(false)));
        await(naming.register(svc, ephemeral("127.0.0.3", 80).withHealthy(false)));
        ServiceView below = naming.list(svc, Set.of(), true);
        assertEquals(1, below.hosts().size(), "1/3 healthy is above the default threshold 0");

        await(naming.updateService(svc, 0.5, Map.of()));
        ServiceView reached = naming.list(svc, Set.of(), true);
        assertTrue(reached.reachProtectionThreshold());
        assertEquals(3, reached.hosts().size());
        assertTrue(reached.hosts().stream().allMatch(Instance::healthy));
    }

    @Test
    void unknownServiceListsNothing() {
        ServiceView v = naming.list(new ServiceKey(ns, "G", "ghost"), Set.of(), true);
        assertTrue(v.hosts().isEmpty());
        assertEquals("G@@ghost", v.name());
        assertEquals(
                naming.list(new ServiceKey(ns, "G", "ghost2"), Set.of(), true).checksum(), v.checksum());
    }

    @Test
    void checksumChangesWithTheListedInstances() throws Exception {
        await(naming.register(svc, ephemeral("127.0.0.1", 80)));
        String one = naming.list(svc, Set.of(), false).checksum();
        assertEquals(one, naming.list(svc, Set.of(), false).checksum());
        await(naming.register(svc, ephemeral("127.0.0.2", 80)));
        String two = naming.list(svc, Set.of(), false).checksum();
        assertFalse(one.equals(two));
    }

    // ------------------------------------------------------------ list versions

    /**
     * The HTTP layer serves a kept list for as long as the service's list version is equal, so the
     * version must move with every change a list can show (else a client reads a stale list) and
     * hold while nothing changes (else nothing is ever served twice).
     */
    @Test
    void theListVersionMovesWithEveryChangeAListCanShowAndHoldsOtherwise() throws Exception {
        ListVersion v = naming.listVersion(svc);
        await(naming.register(svc, ephemeral("127.0.0.1", 80)));
        v = moved(svc, v, "an ephemeral registration");
        assertEquals(v, naming.listVersion(svc), "nothing happened");
        clock.advance(Duration.ofSeconds(2));
        naming.beat(svc, null, "127.0.0.1", 80, Optional.empty());
        naming.checkHeartbeatsNow();
        assertEquals(
                v, naming.listVersion(svc), "a beat of a healthy instance and an expiry pass change nothing shown");
        await(naming.update(svc, ephemeral("127.0.0.1", 80).withWeight(3)));
        v = moved(svc, v, "an ephemeral instance's new weight");
        await(naming.updateService(svc, 0.9, Map.of()));
        v = moved(svc, v, "a new protect threshold");
        clock.advance(Duration.ofSeconds(16));
        naming.checkHeartbeatsNow();
        v = moved(svc, v, "an ephemeral instance turning unhealthy");
        await(naming.deregister(svc, null, "127.0.0.1", 80, true));
        moved(svc, v, "an ephemeral deregistration");

        ServiceKey stock = new ServiceKey(ns, "G", "stock");
        ListVersion p = naming.listVersion(stock);
        await(naming.register(stock, persistent("127.0.0.2", 81)));
        p = moved(stock, p, "a persistent registration");
        assertEquals(p, naming.listVersion(stock), "nothing happened");
        await(naming.update(stock, persistent("127.0.0.2", 81).withEnabled(false)));
        p = moved(stock, p, "a persistent instance disabled");
        await(naming.deregister(stock, null, "127.0.0.2", 81, false));
        moved(stock, p, "a persistent deregistration");
    }

    private ListVersion moved(ServiceKey service, ListVersion before, String change) {
        ListVersion after = naming.listVersion(service);
        assertNotEquals(before, after, change + " left the list version as it was");
        return after;
    }

    // ------------------------------------------------------------ heartbeats and expiry

    @Test
    void silentEphemeralInstanceTurnsUnhealthyThenDisappearsAndABeatKeepsItAlive() throws Exception {
        await(naming.register(svc, ephemeral("127.0.0.1", 80)));
        await(naming.register(svc, ephemeral("127.0.0.2", 80)));
        clock.advance(Duration.ofSeconds(10));
        naming.beat(svc, null, "127.0.0.2", 80, Optional.empty());
        clock.advance(Duration.ofSeconds(6));
        naming.checkHeartbeatsNow();
        assertFalse(naming.instance(svc, null, "127.0.0.1", 80).orElseThrow().healthy());
        assertTrue(naming.instance(svc, null, "127.0.0.2", 80).orElseThrow().healthy());

        BeatResult r = naming.beat(svc, null, "127.0.0.1", 80, Optional.empty());
        assertEquals(BeatResult.Status.OK, r.status());
        assertEquals(5000, r.clientBeatIntervalMs());
        assertTrue(
                naming.instance(svc, null, "127.0.0.1", 80).orElseThrow().healthy(), "a beat makes it healthy again");

        clock.advance(Duration.ofSeconds(31));
        naming.beat(svc, null, "127.0.0.2", 80, Optional.empty());
        naming.checkHeartbeatsNow();
        assertEquals(List.of("127.0.0.2:80"), hosts(svc));
    }

    @Test
    void persistentInstancesNeverExpire() throws Exception {
        await(naming.register(svc, persistent("127.0.0.1", 80)));
        clock.advance(Duration.ofHours(1));
        naming.checkHeartbeatsNow();
        assertTrue(naming.instance(svc, null, "127.0.0.1", 80).orElseThrow().healthy());
        assertEquals(
                BeatResult.Status.OK,
                naming.beat(svc, null, "127.0.0.1", 80, Optional.empty()).status());
    }

    @Test
    void lightBeatForAnUnknownInstanceAnswersUnknownAndAFullBeatRegistersIt() {
        assertEquals(
                BeatResult.Status.UNKNOWN,
                naming.beat(svc, null, "127.0.0.1", 80, Optional.empty()).status());
        assertTrue(naming.service(svc).isEmpty(), "a light beat creates nothing");

        BeatInfo full = new BeatInfo(
                "127.0.0.1",
                80,
                2.5,
                "DEFAULT",
                Map.of(HeartbeatSettings.INTERVAL_KEY, "2000", HeartbeatSettings.TIMEOUT_KEY, "6000"),
                "G@@orders");
        BeatResult r = naming.beat(svc, "DEFAULT", "127.0.0.1", 80, Optional.of(full));
        assertEquals(BeatResult.Status.OK, r.status());
        assertEquals(2000, r.clientBeatIntervalMs(), "the client beats at the interval its metadata asks for");
        Instance i = naming.instance(svc, null, "127.0.0.1", 80).orElseThrow();
        assertTrue(i.ephemeral() && i.healthy() && i.enabled());
        assertEquals(2.5, i.weight());
        assertEquals(
                2000, naming.beat(svc, null, "127.0.0.1", 80, Optional.empty()).clientBeatIntervalMs());
    }

    @Test
    void aFullBeatMustAgreeWithWhatItIsSentFor() {
        BeatInfo elsewhere = new BeatInfo("127.0.0.9", 80, 1, "DEFAULT", Map.of(), "G@@orders");
        assertEquals(
                "beat",
                assertThrows(
                                InvalidRequestException.class,
                                () -> naming.beat(svc, null, "127.0.0.1", 80, Optional.of(elsewhere)))
                        .field());
        BeatInfo otherService = new BeatInfo("127.0.0.1", 80, 1, "DEFAULT", Map.of(), "G@@payments");
        assertEquals(
                "beat",
                assertThrows(
                                InvalidRequestException.class,
                                () -> naming.beat(svc, null, "127.0.0.1", 80, Optional.of(otherService)))
                        .field());
    }

    @Test
    void aLoneDeadInstanceIsListedUnhealthyAfterItsBeatTimeoutAndGoneAfterItsDeleteTimeout() throws Exception {
        // regression: empty-push protection and the threshold listed it healthy for 90 s more
        await(naming.register(svc, ephemeral("127.0.0.9", 9999)));
        clock.advance(Duration.ofSeconds(16));
        naming.checkHeartbeatsNow();
        ServiceView dying = naming.list(svc, Set.of(), false);
        assertEquals(
                List.of(false), dying.hosts().stream().map(Instance::healthy).toList());
        assertFalse(dying.reachProtectionThreshold(), "a service only registrations made has no threshold");
        assertEquals(List.of(), naming.list(svc, Set.of(), true).hosts());
        assertFalse(naming.instance(svc, null, "127.0.0.9", 9999).orElseThrow().healthy());

        clock.advance(Duration.ofSeconds(15));
        naming.checkHeartbeatsNow();
        assertTrue(hosts(svc).isEmpty(), "gone after the delete timeout");
        assertTrue(naming.instance(svc, null, "127.0.0.9", 9999).isEmpty());
    }

    @Test
    void tenInstancesDyingAtOnceAreListedUnhealthyThenGone() throws Exception {
        for (int i = 1; i <= 10; i++) {
            await(naming.register(svc, ephemeral("127.0.0." + i, 80)));
        }
        clock.advance(Duration.ofSeconds(16));
        naming.checkHeartbeatsNow();
        ServiceView dying = naming.list(svc, Set.of(), false);
        assertEquals(10, dying.hosts().size());
        assertTrue(
                dying.hosts().stream().noneMatch(Instance::healthy),
                dying.hosts().toString());
        clock.advance(Duration.ofSeconds(15));
        naming.checkHeartbeatsNow();
        assertTrue(hosts(svc).isEmpty());
    }

    @Test
    void aDefinedServiceAtTheDefaultThresholdListsItsDeadInstancesAsHealthyAsNacos2Does() throws Exception {
        await(naming.createService(svc, ServiceSpec.DEFAULT));
        await(naming.register(svc, ephemeral("127.0.0.1", 80)));
        clock.advance(Duration.ofSeconds(16));
        naming.checkHeartbeatsNow();
        ServiceView v = naming.list(svc, Set.of(), false);
        assertTrue(v.reachProtectionThreshold(), "Nacos 2.x: 0 healthy / 1 <= threshold 0 with service metadata");
        assertEquals(List.of(true), v.hosts().stream().map(Instance::healthy).toList());
        assertFalse(
                naming.instance(svc, null, "127.0.0.1", 80).orElseThrow().healthy(),
                "the instance itself is unhealthy: only the list answer is protected");
    }

    @Test
    void aPersistentRegistrationAloneDefinesNoThreshold() throws Exception {
        await(naming.register(
                svc, Instance.of("127.0.0.1", 80).withEphemeral(false).withHealthy(false)));
        ServiceView v = naming.list(svc, Set.of(), false);
        assertFalse(v.reachProtectionThreshold());
        assertEquals(List.of(false), v.hosts().stream().map(Instance::healthy).toList());
    }

    @Test
    void deregisteringEveryInstanceAnswersEmptyAtOnce() throws Exception {
        await(naming.register(svc, ephemeral("127.0.0.1", 80)));
        await(naming.deregister(svc, null, "127.0.0.1", 80, true));
        assertTrue(naming.list(svc, Set.of(), false).hosts().isEmpty());
    }

    @Test
    void aServiceThatOnlyHadEphemeralInstancesIsForgottenAMinuteAfterItEmptied() throws Exception {
        await(naming.register(svc, ephemeral("127.0.0.1", 80)));
        await(naming.deregister(svc, null, "127.0.0.1", 80, true));
        clock.advance(Duration.ofSeconds(59));
        naming.checkHeartbeatsNow();
        assertTrue(naming.service(svc).isPresent());
        clock.advance(Duration.ofSeconds(1));
        naming.checkHeartbeatsNow();
        assertTrue(naming.service(svc).isEmpty());
    }

    // ------------------------------------------------------------ health

    @Test
    void healthCanBeSetByHandOnlyForPersistentInstancesOfUnprobedClusters() throws Exception {
        ServiceKey eph = new ServiceKey(ns, "G", "eph");
        await(naming.register(eph, ephemeral("127.0.0.1", 80)));
        await(naming.register(svc, persistent("127.0.0.1", 80).withCluster("TCP1")));
        await(naming.register(svc, persistent("127.0.0.2", 80).withCluster("MANUAL")));
        await(naming.updateCluster(svc, "MANUAL", HealthCheckSettings.of(CheckerType.NONE)));

        assertInstanceOf(
                HealthNotSettableException.class, failure(naming.setHealth(eph, null, "127.0.0.1", 80, false)));
        assertInstanceOf(
                HealthNotSettableException.class, failure(naming.setHealth(svc, "TCP1", "127.0.0.1", 80, false)));
        assertInstanceOf(
                InstanceNotFoundException.class, failure(naming.setHealth(svc, "MANUAL", "127.0.0.9", 80, false)));

        await(naming.setHealth(svc, "MANUAL", "127.0.0.2", 80, false));
        assertFalse(
                naming.instance(svc, "MANUAL", "127.0.0.2", 80).orElseThrow().healthy());
        assertTrue(naming.instance(svc, "TCP1", "127.0.0.1", 80).orElseThrow().healthy());
    }

    @Test
    void persistentHealthIsWrittenOnlyWhenItChanges() throws Exception {
        await(naming.register(svc, persistent("127.0.0.1", 80)));
        long before = store.revision();
        assertFalse(await(naming.setPersistentHealth(svc, null, "127.0.0.1", 80, true)));
        assertEquals(before, store.revision(), "same value: nothing proposed");
        assertTrue(await(naming.setPersistentHealth(svc, null, "127.0.0.1", 80, false)));
        assertFalse(naming.instance(svc, null, "127.0.0.1", 80).orElseThrow().healthy());
        assertFalse(await(naming.setPersistentHealth(svc, null, "127.0.0.9", 80, false)), "unknown instance");
    }

    @Test
    void reRegisteringAnUnchangedPersistentInstanceWritesNothingAndAChangedOneIsWritten() throws Exception {
        await(naming.register(svc, persistent("127.0.0.1", 80).withWeight(2)));
        long before = store.revision();
        await(naming.register(svc, persistent("127.0.0.1", 80).withWeight(2)));
        assertEquals(before, store.revision(), "same instance: nothing proposed, no change event");

        await(naming.register(svc, persistent("127.0.0.1", 80).withWeight(3)));
        assertTrue(store.revision() > before, "a changed weight is written");
        assertEquals(
                3, naming.instance(svc, null, "127.0.0.1", 80).orElseThrow().weight());

        // the probe found it dead: a re-registration claiming it healthy keeps that, so it is unchanged too
        assertTrue(await(naming.setPersistentHealth(svc, null, "127.0.0.1", 80, false)));
        long unhealthy = store.revision();
        await(naming.register(svc, persistent("127.0.0.1", 80).withWeight(3)));
        assertEquals(unhealthy, store.revision());
        assertFalse(naming.instance(svc, null, "127.0.0.1", 80).orElseThrow().healthy());
    }

    @Test
    void anUnchangedReRegistrationIsConfirmedWithTheLeaderAndWrittenIfTheInstanceMovedMeanwhile() throws Exception {
        // This replica's copy matches the re-registration, but before its ReadIndex returns the
        // leader has committed an edit made through another node (here: another facade on the store).
        NamingService otherNode = new NamingService(store, NamingOptions.DEFAULT, clock, false);
        AtomicInteger catchUps = new AtomicInteger();
        KvStore replica = (KvStore) java.lang.reflect.Proxy.newProxyInstance(
                KvStore.class.getClassLoader(), new Class<?>[] {KvStore.class}, (proxy, method, args) -> {
                    if (method.getName().equals("linearizable") && catchUps.incrementAndGet() == 1) {
                        await(otherNode.register(
                                svc, persistent("127.0.0.1", 80).withWeight(5)));
                    }
                    try {
                        return method.invoke(store, args);
                    } catch (java.lang.reflect.InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
        naming.close();
        naming = new NamingService(replica, NamingOptions.DEFAULT, clock, false);
        try {
            await(naming.register(svc, persistent("127.0.0.1", 80)));
            await(naming.register(svc, persistent("127.0.0.1", 80)));
            assertEquals(1, catchUps.get(), "an answer without a write first waits for the leader");
            assertEquals(
                    1,
                    naming.instance(svc, null, "127.0.0.1", 80).orElseThrow().weight(),
                    "the edit committed meanwhile is replaced, as any registration replaces it");
        } finally {
            otherNode.close();
        }
    }

    @Test
    void persistentInstancesComeWithTheirClustersProbeSettings() throws Exception {
        HealthCheckSettings http = new HealthCheckSettings(CheckerType.HTTP, "/health", 0, true, "200");
        await(naming.register(svc, persistent("127.0.0.1", 80).withCluster("WEB")));
        await(naming.register(svc, persistent("127.0.0.2", 80)));
        await(naming.updateCluster(svc, "WEB", http));

        List<PersistentInstance> mine = naming.persistentInstances().stream()
                .filter(p -> p.service().equals(svc))
                .toList();
        assertEquals(2, mine.size());
        for (PersistentInstance p : mine) {
            assertEquals(p.instance().cluster().equals("WEB") ? http : HealthCheckSettings.DEFAULT, p.healthCheck());
        }
    }

    // ------------------------------------------------------------ services

    @Test
    void createdServiceExistsWithItsSpecAndACreateOfAnExistingOneIsRefused() throws Exception {
        ServiceSpec spec =
                new ServiceSpec(0.3, Map.of("owner", "team-a"), Map.of("C1", HealthCheckSettings.of(CheckerType.NONE)));
        await(naming.createService(svc, spec));
        Service s = naming.service(svc).orElseThrow();
        assertEquals(spec, s.spec());
        assertTrue(s.stored());
        assertEquals(
                List.of("C1"),
                s.clusters().stream().map(Service.ClusterSummary::name).toList());
        assertEquals(0, s.instances());

        assertInstanceOf(ServiceExistsException.class, failure(naming.createService(svc, ServiceSpec.DEFAULT)));
        ServiceKey implicit = new ServiceKey(ns, "G", "implicit");
        await(naming.register(implicit, ephemeral("127.0.0.1", 80)));
        assertInstanceOf(ServiceExistsException.class, failure(naming.createService(implicit, ServiceSpec.DEFAULT)));
    }

    @Test
    void serviceShowsClustersWithInstanceCounts() throws Exception {
        await(naming.register(svc, ephemeral("127.0.0.1", 80).withCluster("A")));
        await(naming.register(svc, ephemeral("127.0.0.2", 80).withCluster("A").withHealthy(false)));
        await(naming.register(svc, ephemeral("127.0.0.3", 80).withCluster("B")));
        Service s = naming.service(svc).orElseThrow();
        assertFalse(s.stored(), "only ephemeral registrations: no stored definition");
        assertEquals(ServiceSpec.DEFAULT, s.spec());
        assertEquals(
                List.of(
                        new Service.ClusterSummary("A", HealthCheckSettings.DEFAULT, 2, 1),
                        new Service.ClusterSummary("B", HealthCheckSettings.DEFAULT, 1, 1)),
                s.clusters());
        assertEquals(3, s.ephemeralInstances());
        assertEquals(0, s.persistentInstances());
        assertEquals(2, s.healthyInstances());

        ServiceKey p = new ServiceKey(ns, "G", "p");
        await(naming.register(p, persistent("127.0.0.1", 80)));
        assertTrue(naming.service(p).orElseThrow().stored(), "a persistent registration stores the service");
        assertTrue(naming.service(new ServiceKey(ns, "G", "nobody")).isEmpty());
        assertTrue(naming.exists(svc) && naming.exists(p));
        assertFalse(naming.exists(new ServiceKey(ns, "G", "nobody")));
    }

    @Test
    void updateServiceKeepsClusterSettingsAndNeedsAnExistingService() throws Exception {
        assertInstanceOf(ServiceNotFoundException.class, failure(naming.updateService(svc, 0.5, Map.of())));
        assertInstanceOf(
                ServiceNotFoundException.class, failure(naming.updateCluster(svc, "C", HealthCheckSettings.DEFAULT)));
        assertThrows(InvalidRequestException.class, () -> naming.updateService(svc, 2, Map.of()));

        await(naming.register(svc, ephemeral("127.0.0.1", 80)));
        await(naming.updateCluster(svc, "C", HealthCheckSettings.of(CheckerType.HTTP)));
        await(naming.updateService(svc, 0.7, Map.of("k", "v")));
        ServiceSpec spec = naming.service(svc).orElseThrow().spec();
        assertEquals(0.7, spec.protectThreshold());
        assertEquals(Map.of("k", "v"), spec.metadata());
        assertEquals(CheckerType.HTTP, spec.settingsFor("C").type());
    }

    @Test
    void anEditRefusedForWantOfItsServiceOrInstanceIsFirstConfirmedWithTheLeader() throws Exception {
        LaggingReplica follower = new LaggingReplica(store);
        naming.close();
        naming = new NamingService(follower, NamingOptions.DEFAULT, clock, false);
        long before = store.revision();
        await(naming.createService(svc, ServiceSpec.DEFAULT));
        await(naming.register(svc, persistent("127.0.0.1", 80).withCluster("MANUAL")));

        // each edit arrives while this node has not applied the create and the registration yet
        List<java.util.function.Supplier<CompletableFuture<Void>>> edits = List.of(
                () -> naming.updateCluster(svc, "MANUAL", HealthCheckSettings.of(CheckerType.NONE)),
                () -> naming.updateService(svc, 0.5, Map.of("k", "v")),
                () -> naming.update(
                        svc, persistent("127.0.0.1", 80).withCluster("MANUAL").withWeight(3)),
                () -> naming.patch(svc, "MANUAL", "127.0.0.1", 80, InstancePatch.NONE.withMetadata(Map.of("z", "1"))),
                () -> naming.setHealth(svc, "MANUAL", "127.0.0.1", 80, false));
        for (var edit : edits) {
            follower.lagBehind(before);
            assertTrue(naming.service(svc).isEmpty(), "this node does not see the service yet");
            await(edit.get());
        }
        assertEquals(edits.size(), follower.catchUps(), "each refusal waited for the replica to catch up once");
        Service seen = naming.service(svc).orElseThrow();
        assertEquals(0.5, seen.spec().protectThreshold());
        assertEquals(CheckerType.NONE, seen.spec().settingsFor("MANUAL").type());
        Instance edited = naming.instance(svc, "MANUAL", "127.0.0.1", 80).orElseThrow();
        assertEquals(3, edited.weight());
        assertEquals(Map.of("z", "1"), edited.metadata());
        assertFalse(edited.healthy());

        await(naming.deregister(svc, "MANUAL", "127.0.0.1", 80, false));
        follower.lagBehind(before);
        await(naming.deleteService(svc));
        assertTrue(naming.service(svc).isEmpty());
        // a service that is really gone is still refused, once the leader confirms it
        assertInstanceOf(ServiceNotFoundException.class, failure(naming.deleteService(svc)));
        assertInstanceOf(
                InstanceNotFoundException.class,
                failure(naming.patch(svc, "MANUAL", "127.0.0.1", 80, InstancePatch.NONE)));
        assertEquals(edits.size() + 3, follower.catchUps());
    }

    @Test
    void deleteServiceRefusesWhileInstancesRemainAndRefusesAnUnknownService() throws Exception {
        ServiceKey p = new ServiceKey(ns, "G", "p");
        await(naming.register(svc, ephemeral("127.0.0.1", 80)));
        await(naming.register(p, persistent("127.0.0.1", 80)));
        assertInstanceOf(ServiceNotEmptyException.class, failure(naming.deleteService(svc)));
        assertInstanceOf(ServiceNotEmptyException.class, failure(naming.deleteService(p)));
        ServiceNotFoundException missing = assertInstanceOf(
                ServiceNotFoundException.class, failure(naming.deleteService(new ServiceKey(ns, "G", "ghost"))));
        assertTrue(missing.getMessage().contains("not found!"), missing.getMessage());

        await(naming.deregister(svc, null, "127.0.0.1", 80, true));
        await(naming.deregister(p, null, "127.0.0.1", 80, false));
        await(naming.deleteService(svc));
        await(naming.deleteService(p));
        assertTrue(naming.service(svc).isEmpty());
        assertTrue(naming.service(p).isEmpty());
        assertInstanceOf(ServiceNotFoundException.class, failure(naming.deleteService(p)));
    }

    @Test
    void listServicesPagesSortedNamesWithoutGroupPrefixPerNamespaceAndGroup() throws Exception {
        for (String name : List.of("delta", "alpha", "charlie")) {
            await(naming.register(new ServiceKey(ns, "G", name), ephemeral("127.0.0.1", 80)));
        }
        await(naming.createService(new ServiceKey(ns, "G", "bravo"), ServiceSpec.DEFAULT));
        await(naming.register(new ServiceKey(ns, "G", "echo"), persistent("127.0.0.1", 80)));
        await(naming.register(new ServiceKey(ns, "OTHER", "zulu"), ephemeral("127.0.0.1", 80)));
        await(naming.register(new ServiceKey(ns + "-x", "G", "yankee"), ephemeral("127.0.0.1", 80)));

        assertEquals(new ServicePage(5, List.of("alpha", "bravo")), naming.listServices(ns, "G", 1, 2));
        assertEquals(new ServicePage(5, List.of("charlie", "delta")), naming.listServices(ns, "G", 2, 2));
        assertEquals(new ServicePage(5, List.of("echo")), naming.listServices(ns, "G", 3, 2));
        assertEquals(new ServicePage(5, List.of()), naming.listServices(ns, "G", 4, 2));
        assertEquals(new ServicePage(1, List.of("zulu")), naming.listServices(ns, "OTHER", 1, 10));
        assertEquals(
                "pageNo",
                assertThrows(InvalidRequestException.class, () -> naming.listServices(ns, "G", 0, 10))
                        .field());
        assertEquals(
                "pageSize",
                assertThrows(InvalidRequestException.class, () -> naming.listServices(ns, "G", 1, 0))
                        .field());
    }

    @Test
    void listServicesAnswersTheWholeGroupToTheLargestPageSizeAndNothingPastIt() throws Exception {
        List<String> all = new ArrayList<>();
        for (int i = 0; i < 12; i++) {
            String name = String.format("svc-%02d", i);
            all.add(name);
            ServiceKey key = new ServiceKey(ns, "G", name);
            await(
                    i % 3 == 0
                            ? naming.createService(key, ServiceSpec.DEFAULT)
                            : naming.register(
                                    key, i % 3 == 1 ? ephemeral("127.0.0.1", 80) : persistent("127.0.0.1", 80)));
        }

        assertEquals(new ServicePage(12, all), naming.listServices(ns, "G", 1, Integer.MAX_VALUE));
        assertEquals(new ServicePage(12, List.of()), naming.listServices(ns, "G", 2, Integer.MAX_VALUE));
        assertEquals(
                new ServicePage(12, List.of()), naming.listServices(ns, "G", Integer.MAX_VALUE, Integer.MAX_VALUE));
        assertEquals(new ServicePage(12, List.of()), naming.listServices(ns, "G", Integer.MAX_VALUE, 1));
        List<String> paged = new ArrayList<>();
        for (int pageNo = 1; pageNo <= 3; pageNo++) {
            paged.addAll(naming.listServices(ns, "G", pageNo, 5).names());
        }
        assertEquals(all, paged);
        assertEquals(List.of("svc-11"), naming.listServices(ns, "G", 12, 1).names());
        assertEquals(
                "pageSize",
                assertThrows(InvalidRequestException.class, () -> naming.listServices(ns, "G", 1, -1))
                        .field());
        assertEquals(
                "pageNo",
                assertThrows(InvalidRequestException.class, () -> naming.listServices(ns, "G", -1, Integer.MAX_VALUE))
                        .field());
    }

    @Test
    void defaultNamespaceAndGroupApplyWhenBlank() throws Exception {
        ServiceKey dflt = ServiceKey.of(null, null, "lonely-" + ns);
        await(naming.register(dflt, ephemeral("127.0.0.1", 80)));
        assertTrue(naming.listServices("", "", 1, 1000).names().contains("lonely-" + ns));
        assertTrue(
                naming.listServices("public", "DEFAULT_GROUP", 1, 1000).names().contains("lonely-" + ns));
    }

    @Test
    void countsCoverServicesAndBothKindsOfInstances() throws Exception {
        NamingCounts before = naming.counts();
        await(naming.register(svc, ephemeral("127.0.0.1", 80)));
        await(naming.register(svc, ephemeral("127.0.0.2", 80)));
        await(naming.register(new ServiceKey(ns, "G", "p"), persistent("127.0.0.3", 80)));
        NamingCounts after = naming.counts();
        assertEquals(before.services() + 2, after.services());
        assertEquals(before.ephemeralInstances() + 2, after.ephemeralInstances());
        assertEquals(before.persistentInstances() + 1, after.persistentInstances());
    }

    @Test
    void aDeleteRacingAPersistentRegistrationNeverLeavesAnInstanceWithoutItsService() throws Exception {
        for (int round = 0; round < 25; round++) {
            ServiceKey k = new ServiceKey(ns, "G", "race-" + round);
            await(naming.createService(k, ServiceSpec.DEFAULT.withProtectThreshold(0.25)));
            CompletableFuture<Void> delete =
                    CompletableFuture.supplyAsync(() -> naming.deleteService(k)).thenCompose(f -> f);
            CompletableFuture<Void> register = naming.register(k, persistent("127.0.0.1", 80));
            await(register);
            try {
                await(delete);
            } catch (ExecutionException e) {
                assertInstanceOf(ServiceNotEmptyException.class, e.getCause());
            }
            assertTrue(naming.instance(k, null, "127.0.0.1", 80).isPresent());
            assertTrue(
                    naming.service(k).orElseThrow().stored(), "round " + round + ": the instance's service is stored");
            assertTrue(naming.listServices(ns, "G", 1, 1000).names().contains(k.service()));
        }
    }

    // ------------------------------------------------------------ notifications

    @Test
    void everyKindOfChangeIsNotifiedOffTheCallersThread() throws Exception {
        ChangeRecorder heard = new ChangeRecorder();
        try (AutoCloseable sub = naming.subscribe(heard)) {
            ServiceKey p = new ServiceKey(ns, "G", "p");
            List<ThrowingStep> ephemeralSteps = List.of(
                    () -> await(naming.register(svc, ephemeral("127.0.0.1", 80))),
                    () -> await(naming.update(svc, ephemeral("127.0.0.1", 80).withWeight(4))),
                    () -> await(naming.patch(svc, null, "127.0.0.1", 80, InstancePatch.NONE.withEnabled(false))),
                    () -> {
                        clock.advance(Duration.ofSeconds(16));
                        naming.checkHeartbeatsNow(); // unhealthy
                    },
                    () -> naming.beat(svc, null, "127.0.0.1", 80, Optional.empty()), // healthy again
                    () -> {
                        clock.advance(Duration.ofSeconds(31));
                        naming.checkHeartbeatsNow(); // expired
                    },
                    () -> await(naming.register(svc, ephemeral("127.0.0.2", 80))),
                    () -> await(naming.deregister(svc, null, "127.0.0.2", 80, true)));
            for (ThrowingStep step : ephemeralSteps) {
                heard.clear();
                step.run();
                heard.awaitChange(svc);
            }
            List<ThrowingStep> persistentSteps = List.of(
                    () -> await(naming.register(p, persistent("127.0.0.3", 80))),
                    () -> await(naming.update(p, persistent("127.0.0.3", 80).withWeight(2))),
                    () -> await(naming.setPersistentHealth(p, null, "127.0.0.3", 80, false)),
                    () -> await(naming.updateService(p, 0.2, Map.of())),
                    () -> await(naming.deregister(p, null, "127.0.0.3", 80, false)));
            for (ThrowingStep step : persistentSteps) {
                heard.clear();
                step.run();
                heard.awaitChange(p);
            }
            String caller = Thread.currentThread().getName();
            assertTrue(heard.threads().stream().allMatch("naming-notifier"::equals), heard.threads() + " vs " + caller);
        }
    }

    @Test
    void aFailingListenerDoesNotSilenceTheOthers() throws Exception {
        ChangeRecorder heard = new ChangeRecorder();
        try (AutoCloseable bad = naming.subscribe(s -> {
                    throw new IllegalStateException("boom");
                });
                AutoCloseable good = naming.subscribe(heard)) {
            await(naming.register(svc, ephemeral("127.0.0.1", 80)));
            heard.awaitChange(svc);
            heard.clear();
            await(naming.register(svc, ephemeral("127.0.0.2", 80)));
            heard.awaitChange(svc);
        }
    }

    @FunctionalInterface
    interface ThrowingStep {
        void run() throws Exception;
    }
}
