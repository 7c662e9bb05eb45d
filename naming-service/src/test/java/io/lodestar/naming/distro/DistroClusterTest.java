package io.lodestar.naming.distro;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lodestar.error.Failures;
import io.lodestar.error.LimitExceededException;
import io.lodestar.kv.KvStoreConfig;
import io.lodestar.kv.StoreUnavailableException;
import io.lodestar.kv.cluster.ClusterView;
import io.lodestar.kv.cluster.MemberState;
import io.lodestar.kv.raft.RaftKvStore;
import io.lodestar.kv.testing.Await;
import io.lodestar.kv.testing.FreePorts;
import io.lodestar.naming.NamingKeyspaces;
import io.lodestar.naming.NamingQuotas;
import io.lodestar.naming.ephemeral.EphemeralRegistry;
import io.lodestar.naming.ephemeral.ExpiryRules;
import io.lodestar.naming.ephemeral.Mutation;
import io.lodestar.naming.model.Instance;
import io.lodestar.naming.model.InstanceAddress;
import io.lodestar.naming.model.ServiceKey;
import io.lodestar.naming.service.NamingOptions;
import io.lodestar.naming.service.NamingService;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Distro on a real three-node Raft group (three stores, three registries, one JVM, real sockets). */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class DistroClusterTest {
    private static final Duration WAIT = Duration.ofSeconds(30);
    /** Fast timing. */
    private static final NamingOptions FAST = NamingOptions.DEFAULT
            .withHeartbeatCheckInterval(Duration.ofMillis(200))
            .withDistro(new Distro.Options(50, 500, 2_000, 10_000));
    /** Instances that turn unhealthy after 1.5 s without beats and go after 3 s. */
    private static final Map<String, String> SHORT_LIVED = Map.of(
            "preserved.heart.beat.interval", "500",
            "preserved.heart.beat.timeout", "1500",
            "preserved.ip.delete.timeout", "3000");

    @TempDir
    Path dir;

    final List<String> peers = new ArrayList<>();
    final RaftKvStore[] stores = new RaftKvStore[3];
    final NamingService[] naming = new NamingService[3];

    @BeforeEach
    void startGroup() throws Exception {
        for (int i = 0; i < 3; i++) {
            peers.add("127.0.0.1:" + FreePorts.next());
        }
        for (int i = 0; i < 3; i++) {
            stores[i] = startStore(i);
        }
        Await.until(WAIT, "every member to see the others", () -> {
            for (RaftKvStore s : stores) {
                ClusterView v = s.cluster();
                if (v.leader() == null || v.members().stream().anyMatch(m -> m.state() == MemberState.UNREACHABLE)) {
                    return false;
                }
            }
            return true;
        });
    }

    private RaftKvStore startStore(int i) {
        int port = Integer.parseInt(peers.get(i).substring(peers.get(i).indexOf(':') + 1));
        return RaftKvStore.start(KvStoreConfig.of(
                        "127.0.0.1",
                        port,
                        peers,
                        dir.resolve("n" + i),
                        "naming-distro-test-secret".getBytes(StandardCharsets.UTF_8),
                        NamingKeyspaces.ALL)
                .withTimeouts(600, 5_000)
                .withCounting(NamingKeyspaces.COUNTED));
    }

    private NamingService startNaming(int i) {
        return startNaming(i, FAST);
    }

    private NamingService startNaming(int i, NamingOptions options) {
        naming[i] = new NamingService(stores[i], options, Clock.systemUTC());
        Await.until(WAIT, "node " + i + " to load its peers' instances", naming[i]::ephemeralLoaded);
        return naming[i];
    }

    @AfterEach
    void stop() {
        for (int i = 0; i < 3; i++) {
            if (naming[i] != null) {
                naming[i].close();
            }
            if (stores[i] != null) {
                stores[i].close();
            }
        }
    }

    /** Stops node {@code i}'s registry and store, as its death does for the others. */
    private void stop(int i) {
        naming[i].close();
        naming[i] = null;
        stores[i].close();
        stores[i] = null;
    }

    private static ServiceKey service(int n) {
        return ServiceKey.of("public", "DEFAULT_GROUP", "svc-" + n);
    }

    private static Instance instance(String ip, Map<String, String> metadata) {
        return new Instance(null, ip, 8080, 1, true, true, true, "DEFAULT", metadata);
    }

    private static Set<String> ips(NamingService n, ServiceKey s) {
        return Set.copyOf(
                n.list(s, Set.of(), false).hosts().stream().map(Instance::ip).toList());
    }

    /** A service whose owner, with every member live, is node {@code owner}. */
    private ServiceKey ownedBy(int owner) {
        return ownedBy(owner, peers);
    }

    /** A service whose owner is node {@code owner} with every member live, and also with only {@code live}. */
    private ServiceKey ownedBy(int owner, List<String> live) {
        for (int n = 0; ; n++) {
            ServiceKey s = ServiceKey.of("public", "DEFAULT_GROUP", "owned-" + n);
            if (DistroRing.ownerAmong(peers.stream().sorted().toList(), s).equals(peers.get(owner))
                    && DistroRing.ownerAmong(live.stream().sorted().toList(), s).equals(peers.get(owner))) {
                return s;
            }
        }
    }

    @Test
    void aWriteForAnOwnerWhoseRegistryIsNotUpIsRefusedRetriablyNotAppliedElsewhere() throws Exception {
        // regression: the write used to be applied on the forwarding node instead, unknown to the
        // owner, whose first verification then made every member forget it
        startNaming(0);
        startNaming(1);
        ServiceKey s = ownedBy(2); // node 2's store answers, its registry is not started
        long started = System.nanoTime();
        ExecutionException refused = assertThrows(
                ExecutionException.class,
                () -> naming[0].register(s, instance("127.0.7.1", Map.of())).get(10, TimeUnit.SECONDS));
        assertTrue(refused.getCause() instanceof StoreUnavailableException, refused.toString());
        long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
        assertTrue(
                tookMs >= FAST.distro().requestTimeoutMs() - 200, "asked again until the timeout: " + tookMs + " ms");
        assertEquals(Set.of(), ips(naming[0], s), "nothing applied on the forwarding node");
        assertEquals(Set.of(), ips(naming[1], s));
    }

    @Test
    void aWriteForAStartingOwnerIsTakenByItOnceItIsUpAndReplicated() throws Exception {
        startNaming(0);
        startNaming(1);
        ServiceKey s = ownedBy(2);
        CompletableFuture<Void> write = naming[0].register(s, instance("127.0.7.2", Map.of()));
        assertFalse(write.isDone(), "nobody can take the write until the owner is up");
        naming[2] = new NamingService(stores[2], FAST, Clock.systemUTC()); // up while the write is asked again
        write.get(10, TimeUnit.SECONDS);
        for (int i = 0; i < 3; i++) {
            int node = i;
            Await.until(
                    WAIT,
                    "the instance on node " + i,
                    () -> ips(naming[node], s).equals(Set.of("127.0.7.2")));
        }
        // through two verification rounds it stays everywhere: the owner holds it itself
        Await.holdsFor(
                Duration.ofMillis(FAST.distro().verifyIntervalMs() * 2),
                "the instance on every node",
                () -> Arrays.stream(naming).allMatch(n -> ips(n, s).equals(Set.of("127.0.7.2"))),
                () -> Arrays.stream(naming).map(n -> ips(n, s)).toList());
    }

    @Test
    void anInstanceRegisteredThroughAnyNodeIsListedOnEveryNode() throws Exception {
        for (int i = 0; i < 3; i++) {
            startNaming(i);
        }
        for (int n = 0; n < 12; n++) {
            // registered through each node in turn: most land on a node that does not own the service
            naming[n % 3]
                    .register(service(n), instance("127.0.0." + (n + 1), Map.of()))
                    .get(10, TimeUnit.SECONDS);
            assertEquals(
                    Set.of("127.0.0." + (n + 1)),
                    ips(naming[n % 3], service(n)),
                    "the registering node reads its own write at once");
        }
        for (int n = 0; n < 12; n++) {
            ServiceKey s = service(n);
            Set<String> expected = Set.of("127.0.0." + (n + 1));
            Await.until(
                    WAIT,
                    "svc-" + n + " on every node",
                    () -> expected.equals(ips(naming[0], s))
                            && expected.equals(ips(naming[1], s))
                            && expected.equals(ips(naming[2], s)));
        }
        naming[1].deregister(service(0), "DEFAULT", "127.0.0.1", 8080, true).get(10, TimeUnit.SECONDS);
        Await.until(
                WAIT,
                "the deregistration on every node",
                () -> ips(naming[0], service(0)).isEmpty()
                        && ips(naming[1], service(0)).isEmpty()
                        && ips(naming[2], service(0)).isEmpty());
    }

    /**
     * The owner counts a service's ephemeral instances: its refusal reaches the node the client
     * wrote through, naming the quota, and the owner alone counts it.
     */
    @Test
    void anEphemeralQuotaRefusalByTheOwnerReachesTheForwardingNodeNamingIt() throws Exception {
        List<List<String>> refused = List.of(
                new java.util.concurrent.CopyOnWriteArrayList<>(),
                new java.util.concurrent.CopyOnWriteArrayList<>(),
                new java.util.concurrent.CopyOnWriteArrayList<>());
        for (int i = 0; i < 3; i++) {
            startNaming(
                    i,
                    FAST.withQuotas(
                            new NamingQuotas(Long.MAX_VALUE, Long.MAX_VALUE, 1, Long.MAX_VALUE, refused.get(i)::add)));
        }
        ServiceKey s = service(0);
        int owner = peers.indexOf(new DistroRing(stores[0]::cluster).owner(s));
        int writer = (owner + 1) % 3;
        naming[writer].register(s, instance("127.0.3.1", Map.of())).get(10, TimeUnit.SECONDS);

        ExecutionException e = assertThrows(
                ExecutionException.class,
                () -> naming[writer]
                        .register(s, instance("127.0.3.2", Map.of()))
                        .get(10, TimeUnit.SECONDS));

        LimitExceededException refusal = (LimitExceededException) Failures.cause(e);
        assertEquals(NamingQuotas.EPHEMERAL_PER_SERVICE_LIMIT, refusal.limit());
        assertTrue(refusal.getMessage().contains(s.groupedName()), refusal.getMessage());
        assertEquals(List.of(NamingQuotas.EPHEMERAL_PER_SERVICE_LIMIT), refused.get(owner));
        assertEquals(List.of(), refused.get(writer));
        assertEquals(Set.of("127.0.3.1"), ips(naming[writer], s));
    }

    @Test
    void aStartingNodeCopiesItsPeersInstancesBeforeItCountsAsLoaded() throws Exception {
        stores[2].close(); // node 2 joins later, as a restarted member does
        stores[2] = null;
        Await.until(
                WAIT,
                "nodes 0 and 1 to see node 2 gone",
                () -> new DistroRing(stores[0]::cluster).live().size() == 2
                        && new DistroRing(stores[1]::cluster).live().size() == 2);
        startNaming(0);
        startNaming(1);
        for (int n = 0; n < 6; n++) {
            naming[n % 2]
                    .register(service(n), instance("127.0.1." + (n + 1), Map.of()))
                    .get(10, TimeUnit.SECONDS);
        }
        Await.until(WAIT, "both running nodes to agree", () -> {
            for (int n = 0; n < 6; n++) {
                if (ips(naming[0], service(n)).isEmpty()
                        || ips(naming[1], service(n)).isEmpty()) {
                    return false;
                }
            }
            return true;
        });
        stores[2] = startStore(2);
        Await.until(
                WAIT,
                "node 2 to see its peers",
                () -> new DistroRing(stores[2]::cluster).live().size() == 3);
        NamingService late = startNaming(2);
        for (int n = 0; n < 6; n++) {
            assertEquals(Set.of("127.0.1." + (n + 1)), ips(late, service(n)), "svc-" + n + " once loaded");
        }
    }

    @Test
    void theServicesOfADeadOwnerStayWhileBeatenAndExpireWhenTheBeatsStop() throws Exception {
        for (int i = 0; i < 3; i++) {
            startNaming(i);
        }
        String dying = peers.get(2);
        List<ServiceKey> ownedByDying = new ArrayList<>();
        for (int n = 0; ownedByDying.size() < 3 && n < 200; n++) {
            if (new DistroRing(stores[0]::cluster).owner(service(n)).equals(dying)) {
                ownedByDying.add(service(n));
            }
        }
        assertEquals(3, ownedByDying.size());
        for (ServiceKey s : ownedByDying) {
            naming[0].register(s, instance("127.0.2.1", SHORT_LIVED)).get(10, TimeUnit.SECONDS);
        }
        // the client beats through node 1 from the start, as a real one does (every 250 ms here)
        java.util.concurrent.atomic.AtomicBoolean beating = new java.util.concurrent.atomic.AtomicBoolean(true);
        Thread client = new Thread(
                () -> {
                    while (beating.get()) {
                        for (ServiceKey s : ownedByDying) {
                            try {
                                naming[1]
                                        .beatAsync(s, "DEFAULT", "127.0.2.1", 8080, Optional.empty())
                                        .get(10, TimeUnit.SECONDS);
                            } catch (Exception e) {
                                // a beat lost while the owner dies; the next one follows
                            }
                        }
                        try {
                            Thread.sleep(250);
                        } catch (InterruptedException e) {
                            return;
                        }
                    }
                },
                "test-client-beats");
        client.start();
        try {
            // both survivors must hold the owner's replicas before it dies: either may inherit a service, and an
            // heir without the replica answers the beats "not found" (a real client then re-registers; this one does
            // not)
            Await.until(
                    WAIT,
                    "both survivors to hold the dying owner's services",
                    () -> ownedByDying.stream()
                            .allMatch(s -> ips(naming[0], s).equals(Set.of("127.0.2.1"))
                                    && ips(naming[1], s).equals(Set.of("127.0.2.1"))));

            stop(2);
            Await.until(
                    WAIT,
                    "the survivors to see node 2 gone",
                    () -> !new DistroRing(stores[0]::cluster).live().contains(dying)
                            && !new DistroRing(stores[1]::cluster).live().contains(dying));

            // beaten through node 1 for three delete timeouts: nothing expires
            Await.holdsFor(
                    Duration.ofSeconds(9),
                    "every instance listed and healthy while beaten",
                    () -> ownedByDying.stream()
                            .allMatch(s -> ips(naming[0], s).equals(Set.of("127.0.2.1"))
                                    && naming[0].list(s, Set.of(), true).hosts().size() == 1),
                    () -> ownedByDying.stream()
                            .map(s -> s + "=" + ips(naming[0], s))
                            .toList());
        } finally {
            beating.set(false);
            client.join(15_000);
        }
        // the client stops: the new owners expire the instances, everywhere
        Await.until(
                WAIT,
                "the instances to expire on both survivors",
                () -> ownedByDying.stream()
                        .allMatch(s ->
                                ips(naming[0], s).isEmpty() && ips(naming[1], s).isEmpty()));
    }

    /**
     * Two members that disagree on who is live (one has seen node 2 die, the other not yet) must
     * not make each other drop the dead owner's services. Two Distro instances on the real stores'
     * peer channels; member 0's view of the ring leaves out node 2, member 1's holds it.
     */
    /**
     * Instances a node held for its gRPC clients outlive it by their beat timeout, not their delete
     * timeout, unless a client registered its instance again through a survivor.
     */
    @Test
    void theInstancesADeadNodeHeldGoAfterTheirBeatTimeoutUnlessHeldAgainElsewhere() throws Exception {
        for (int i = 0; i < 3; i++) {
            startNaming(i);
        }
        // no beats at all: unhealthy after 1.5 s, and a delete timeout far beyond this test
        Map<String, String> longDelete = Map.of(
                "preserved.heart.beat.interval", "500",
                "preserved.heart.beat.timeout", "1500",
                "preserved.ip.delete.timeout", "600000");
        ServiceKey orphaned = service(1);
        // owned by node 0 before and after node 2 dies, so that node 0 takes the second registration itself
        ServiceKey movedOn = ownedBy(0, List.of(peers.get(0), peers.get(1)));
        ServiceKey plain = service(3);
        naming[2].registerHeld(orphaned, instance("127.0.6.1", longDelete)).get(10, TimeUnit.SECONDS);
        naming[2].registerHeld(movedOn, instance("127.0.6.2", longDelete)).get(10, TimeUnit.SECONDS);
        naming[2].register(plain, instance("127.0.6.3", longDelete)).get(10, TimeUnit.SECONDS);
        Await.until(
                WAIT,
                "every instance listed on both survivors",
                () -> ips(naming[0], orphaned).size()
                                        + ips(naming[0], movedOn).size()
                                        + ips(naming[0], plain).size()
                                == 3
                        && ips(naming[1], orphaned).size()
                                        + ips(naming[1], movedOn).size()
                                        + ips(naming[1], plain).size()
                                == 3);
        Await.holdsFor(
                Duration.ofSeconds(3),
                "held instances stay past their beat timeout while their holder lives",
                () -> ips(naming[0], orphaned).equals(Set.of("127.0.6.1")));
        naming[0].registerHeld(movedOn, instance("127.0.6.2", longDelete)).get(10, TimeUnit.SECONDS);

        String dead = peers.get(2);
        stop(2);
        Await.until(
                WAIT,
                "the orphaned instance removed on both survivors",
                () -> ips(naming[0], orphaned).isEmpty()
                        && ips(naming[1], orphaned).isEmpty());
        assertFalse(new DistroRing(stores[0]::cluster).live().contains(dead));
        Await.holdsFor(
                Duration.ofSeconds(3),
                "the instance held again by node 0, and the one its client beats, stay",
                () -> ips(naming[1], movedOn).equals(Set.of("127.0.6.2"))
                        && ips(naming[1], plain).equals(Set.of("127.0.6.3")));
    }

    @Test
    void aPeerThatHasNotSeenAMemberDieDoesNotMakeOthersDropTheDeadMembersServices() throws Exception {
        String dead = peers.get(2);
        List<String> withoutDead =
                List.of(peers.get(0), peers.get(1)).stream().sorted().toList();
        List<String> all = peers.stream().sorted().toList();
        // inherited: owned by node 2 while it lives, by node 1 once it is gone; dropped: node 1's in both views
        ServiceKey inherited = null;
        ServiceKey dropped = null;
        for (int n = 0; n < 500 && (inherited == null || dropped == null); n++) {
            ServiceKey s = service(n);
            String ownerNow = DistroRing.ownerAmong(all, s);
            String ownerAfter = DistroRing.ownerAmong(withoutDead, s);
            if (ownerNow.equals(dead) && ownerAfter.equals(peers.get(1))) {
                inherited = s;
            } else if (ownerNow.equals(peers.get(1)) && ownerAfter.equals(peers.get(1))) {
                dropped = s;
            }
        }
        assertTrue(inherited != null && dropped != null, "the ring spreads 500 services over every member");

        Distro.Options fast = new Distro.Options(50, 100, 2_000, 1_000);
        EphemeralRegistry sawDeath = new EphemeralRegistry(Clock.systemUTC(), ExpiryRules.DEFAULT, s -> {});
        EphemeralRegistry notYet = new EphemeralRegistry(Clock.systemUTC(), ExpiryRules.DEFAULT, s -> {});
        LocalWrites none = w -> CompletableFuture.failedFuture(new AssertionError("no writes in this test"));
        try (Distro first = new Distro(
                                stores[0].peers(),
                                new DistroRing(() -> withoutMember(stores[0].cluster(), dead)),
                                sawDeath,
                                none,
                                fast)
                        .start();
                Distro second =
                        new Distro(stores[1].peers(), new DistroRing(stores[1]::cluster), notYet, none, fast).start()) {
            Await.until(
                    WAIT,
                    "both to have copied their peers' (empty) registries",
                    () -> first.loaded() && second.loaded());
            // node 0 holds replicas of both services; node 1 holds neither (node 2's copy of the first died with it)
            sawDeath.apply(inherited, new Mutation.Register(instance("127.0.3.1", Map.of())));
            sawDeath.apply(dropped, new Mutation.Register(instance("127.0.3.2", Map.of())));
            ServiceKey control = dropped;
            // node 1 owns the second service in both views and lacks it: its verification drops it on node 0
            Await.until(
                    WAIT,
                    "node 1's verification to drop the service it owns in both views",
                    () -> !sawDeath.contains(control));
            // and once more, so a whole verification has surely run since: the first service is still there,
            // as node 1 does not yet think it owns it
            sawDeath.apply(dropped, new Mutation.Register(instance("127.0.3.2", Map.of())));
            Await.until(WAIT, "node 1's next verification to drop it again", () -> !sawDeath.contains(control));
            assertEquals(
                    List.of("127.0.3.1"),
                    sawDeath.instances(inherited).stream().map(Instance::ip).toList());
        }
    }

    /**
     * A node that restarts copies its peers' instances and at once counts itself live, so it owns
     * its share of the services; the others count it live only once their member directories have
     * reached it. In between, a service it owns may be changed both on it and on the member that
     * still thinks it owns the service: both changes must survive, on both nodes (the restarted
     * node's older copy must not bring back an instance deregistered on the other).
     */
    @Test
    void changesMadeOnTwoMembersWhileOneRestartsAndIsNotYetSeenLiveAreBothKept() throws Exception {
        String restarted = peers.get(1);
        List<String> all = peers.stream().sorted().toList();
        List<String> withoutRestarted =
                List.of(peers.get(0), peers.get(2)).stream().sorted().toList();
        ServiceKey contested = null;
        for (int n = 0; n < 500 && contested == null; n++) {
            ServiceKey s = service(n);
            if (DistroRing.ownerAmong(all, s).equals(restarted)
                    && DistroRing.ownerAmong(withoutRestarted, s).equals(peers.get(0))) {
                contested = s;
            }
        }
        assertTrue(contested != null, "the ring spreads 500 services over every member");
        ServiceKey service = contested;

        Distro.Options fast = new Distro.Options(50, 100, 2_000, 1_000);
        AtomicReference<Distro> writerDistro = new AtomicReference<>();
        AtomicReference<Distro> restartedDistro = new AtomicReference<>();
        EphemeralRegistry writer =
                new EphemeralRegistry(Clock.systemUTC(), ExpiryRules.DEFAULT, s -> changed(writerDistro, s));
        EphemeralRegistry restartedCopy =
                new EphemeralRegistry(Clock.systemUTC(), ExpiryRules.DEFAULT, s -> changed(restartedDistro, s));
        writer.apply(service, new Mutation.Register(instance("127.0.4.1", Map.of())));
        writer.apply(service, new Mutation.Register(instance("127.0.4.2", Map.of())));
        restartedCopy.merge(writer.copy(service).orElseThrow()); // what it copied while starting
        LocalWrites none = w -> CompletableFuture.failedFuture(new AssertionError("no forwarded writes in this test"));
        // the writer has not yet seen the restarted node come back: it sends its changes to the others only
        DistroRing writersRing = new DistroRing(() -> withoutMember(stores[0].cluster(), restarted));
        try (Distro w = new Distro(stores[0].peers(), writersRing, writer, none, fast).start();
                Distro r = new Distro(stores[1].peers(), new DistroRing(stores[1]::cluster), restartedCopy, none, fast)
                        .start()) {
            writerDistro.set(w);
            restartedDistro.set(r);
            Await.until(WAIT, "both to have loaded", () -> w.loaded() && r.loaded());
            // each applies a write as the service's owner, as its own view of the ring says it is
            writer.apply(service, new Mutation.Deregister(new InstanceAddress("DEFAULT", "127.0.4.1", 8080)));
            restartedCopy.apply(service, new Mutation.Register(instance("127.0.4.3", Map.of())));
            Set<String> expected = Set.of("127.0.4.2", "127.0.4.3");
            Await.until(
                    WAIT,
                    "both copies to hold both changes",
                    () -> ips(writer, service).equals(expected)
                            && ips(restartedCopy, service).equals(expected));
            assertEquals(
                    writer.snapshot(service).orElseThrow().checksum(),
                    restartedCopy.snapshot(service).orElseThrow().checksum());
        }
    }

    private static void changed(AtomicReference<Distro> distro, ServiceKey service) {
        Distro d = distro.get();
        if (d != null) {
            d.changed(service);
        }
    }

    private static Set<String> ips(EphemeralRegistry registry, ServiceKey service) {
        return Set.copyOf(registry.instances(service).stream().map(Instance::ip).toList());
    }

    /**
     * A starting node holds only part of the instances until its peer's copy arrives: it must not
     * apply writes to that part (a deregistration of an instance not copied yet would be lost), nor
     * take writes forwarded to it; the forwarding member applies those itself.
     */
    @Test
    void aNodeStillCopyingItsPeersInstancesAppliesNoWriteToItsPartialCopy() throws Exception {
        List<String> seen =
                List.of(peers.get(0), peers.get(1)).stream().sorted().toList();
        ServiceKey service = null;
        for (int n = 0; n < 500 && service == null; n++) {
            if (DistroRing.ownerAmong(seen, service(n)).equals(peers.get(1))) {
                service = service(n);
            }
        }
        assertTrue(service != null, "the ring spreads 500 services over every member");
        ServiceKey owned = service;
        // node 0 stands in for the peer being copied: its answer is held until the test lets it go
        CompletableFuture<byte[]> copy = new CompletableFuture<>();
        stores[0].peers().handle(Distro.ALL, (from, body) -> copy);
        EphemeralRegistry starting = new EphemeralRegistry(Clock.systemUTC(), ExpiryRules.DEFAULT, s -> {});
        LocalWrites applyHere = w -> {
            if (w instanceof EphemeralWrite.Register r) {
                starting.apply(r.service(), new Mutation.Register(r.instance()));
            } else if (w instanceof EphemeralWrite.Deregister d) {
                starting.apply(d.service(), new Mutation.Deregister(d.address()));
            }
            return CompletableFuture.completedFuture(null);
        };
        Distro.Options slowToLoad = new Distro.Options(50, 100, 1_000, 60_000);
        try (Distro node = new Distro(
                        stores[1].peers(),
                        new DistroRing(() -> withoutMember(stores[1].cluster(), peers.get(2))),
                        starting,
                        applyHere,
                        slowToLoad)
                .start()) {
            assertFalse(node.loaded());
            // a write forwarded to it by the owner's peer is refused: the sender applies it to its whole copy
            byte[] forwarded = DistroCodec.encode(out -> EphemeralWrite.write(
                    out, new EphemeralWrite.Register(owned, instance("127.0.5.9", Map.of()), null)));
            CompletionException refused = assertThrows(
                    CompletionException.class,
                    () -> stores[0]
                            .peers()
                            .send(peers.get(1), Distro.WRITE, forwarded, 2_000)
                            .join());
            assertTrue(
                    refused.getCause().getMessage().contains("still copying"),
                    refused.getCause().getMessage());
            // its own client's deregistration goes to the peer (which takes no writes here) and fails whole
            CompletionException failed = assertThrows(
                    CompletionException.class,
                    () -> node.write(new EphemeralWrite.Deregister(
                                    owned, new InstanceAddress("DEFAULT", "127.0.5.1", 8080), null))
                            .join());
            assertTrue(failed.getCause() instanceof StoreUnavailableException, String.valueOf(failed.getCause()));
            assertFalse(starting.contains(owned), "nothing was applied to the partial copy");

            EphemeralRegistry peersCopy = new EphemeralRegistry(Clock.systemUTC(), ExpiryRules.DEFAULT, s -> {});
            peersCopy.apply(owned, new Mutation.Register(instance("127.0.5.1", Map.of())));
            copy.complete(DistroCodec.encode(out ->
                    DistroCodec.writeCopies(out, List.of(peersCopy.copy(owned).orElseThrow()))));
            Await.until(WAIT, "the copy to arrive", node::loaded);
            assertEquals(
                    List.of("127.0.5.1"),
                    starting.instances(owned).stream().map(Instance::ip).toList());
            // now whole, it owns the service and applies its writes
            node.write(new EphemeralWrite.Deregister(owned, new InstanceAddress("DEFAULT", "127.0.5.1", 8080), null))
                    .join();
            assertEquals(List.of(), starting.instances(owned));
        }
    }

    /** {@code view} with {@code member} unreachable, as a member directory shows a member it has seen die. */
    private static ClusterView withoutMember(ClusterView view, String member) {
        return new ClusterView(
                view.self(),
                view.leader(),
                view.term(),
                view.appliedIndex(),
                view.commitIndex(),
                view.members().stream()
                        .map(m -> m.address().equals(member)
                                ? new ClusterView.Member(m.address(), m.httpAddress(), MemberState.UNREACHABLE)
                                : m)
                        .toList());
    }

    /**
     * With verification a long way off, syncs alone carry every change to the peers: the first
     * change after a quiet spell schedules the next sync, and none runs while nothing changes.
     */
    @Test
    void syncsAloneCarryChangesToThePeersAfterEveryQuietSpell() throws Exception {
        NamingOptions syncOnly = FAST.withDistro(new Distro.Options(50, 600_000, 2_000, 10_000));
        for (int i = 0; i < 3; i++) {
            naming[i] = new NamingService(stores[i], syncOnly, Clock.systemUTC());
            int node = i;
            Await.until(WAIT, "node " + i + " to load its peers' instances", () -> naming[node].ephemeralLoaded());
        }
        for (int n = 0; n < 4; n++) {
            // each change comes after the previous one's sync has run, so each has to arm a new one
            ServiceKey s = service(100 + n);
            naming[n % 3].register(s, instance("127.0.4." + (n + 1), Map.of())).get(10, TimeUnit.SECONDS);
            Set<String> expected = Set.of("127.0.4." + (n + 1));
            Await.until(
                    WAIT,
                    "change " + n + " on every node",
                    () -> expected.equals(ips(naming[0], s))
                            && expected.equals(ips(naming[1], s))
                            && expected.equals(ips(naming[2], s)));
        }
    }
}
