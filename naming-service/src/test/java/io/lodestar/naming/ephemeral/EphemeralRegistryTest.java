package io.lodestar.naming.ephemeral;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lodestar.naming.MutableClock;
import io.lodestar.naming.model.HeartbeatSettings;
import io.lodestar.naming.model.Instance;
import io.lodestar.naming.model.InstanceAddress;
import io.lodestar.naming.model.ServiceKey;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The in-memory registry and its expiry, driven by a clock the test moves: no sleeps. */
class EphemeralRegistryTest {
    static final ServiceKey SVC = new ServiceKey("public", "G", "svc");
    static final ServiceKey OTHER = new ServiceKey("public", "G", "other");

    final MutableClock clock = new MutableClock(1_000_000);
    final List<ServiceKey> changes = new ArrayList<>();
    EphemeralRegistry registry = new EphemeralRegistry(clock, ExpiryRules.DEFAULT, changes::add);

    static Instance instance(String ip) {
        return Instance.of(ip, 8080).withDefaultId(SVC);
    }

    static InstanceAddress at(String ip) {
        return new InstanceAddress("DEFAULT", ip, 8080);
    }

    Outcome register(String ip) {
        return registry.apply(SVC, new Mutation.Register(instance(ip)));
    }

    void expireAfter(Duration d) {
        clock.advance(d);
        registry.apply(SVC, new Mutation.Expire());
    }

    @Test
    void registerAddsAndReplacesAtTheSameAddressAndReportsOnlyVisibleChanges() {
        assertEquals(Outcome.CHANGED, register("127.0.0.1"));
        assertEquals(Outcome.UNCHANGED, register("127.0.0.1"), "the same instance again is only a beat");
        assertEquals(
                Outcome.CHANGED,
                registry.apply(SVC, new Mutation.Register(instance("127.0.0.1").withWeight(3))));
        assertEquals(1, registry.instances(SVC).size());
        assertEquals(3, registry.instances(SVC).get(0).weight());
        assertEquals(List.of(SVC, SVC), changes);
    }

    @Test
    void onlyEphemeralInstancesEnterTheRegistry() {
        assertThrows(
                IllegalArgumentException.class,
                () -> new Mutation.Register(
                        Instance.of("127.0.0.1", 1).withDefaultId(SVC).withEphemeral(false)));
    }

    @Test
    void deregisterOfAnUnknownInstanceOrServiceIsNotFound() {
        assertEquals(Outcome.NOT_FOUND, registry.apply(SVC, new Mutation.Deregister(at("127.0.0.1"))));
        register("127.0.0.1");
        assertEquals(Outcome.CHANGED, registry.apply(SVC, new Mutation.Deregister(at("127.0.0.1"))));
        assertEquals(Outcome.NOT_FOUND, registry.apply(SVC, new Mutation.Deregister(at("127.0.0.1"))));
        assertTrue(registry.contains(SVC), "the service outlives its last instance for a while");
    }

    @Test
    void silentInstanceTurnsUnhealthyAfterItsTimeoutAndIsRemovedAfterItsDeleteTimeout() {
        register("127.0.0.1");
        expireAfter(Duration.ofMillis(HeartbeatSettings.DEFAULT_TIMEOUT_MS));
        assertTrue(
                registry.instances(SVC).get(0).healthy(), "exactly at the timeout it is still healthy (Nacos uses >)");
        expireAfter(Duration.ofMillis(1));
        assertFalse(registry.instances(SVC).get(0).healthy());
        clock.advanceMillis(HeartbeatSettings.DEFAULT_DELETE_TIMEOUT_MS - HeartbeatSettings.DEFAULT_TIMEOUT_MS - 1);
        registry.apply(SVC, new Mutation.Expire());
        assertEquals(1, registry.instances(SVC).size(), "exactly at the delete timeout it stays");
        expireAfter(Duration.ofMillis(1));
        assertTrue(registry.instances(SVC).isEmpty());
    }

    @Test
    void aHeldInstanceLivesWithoutBeatsWhileItsHolderLivesAndGoesAfterItsBeatTimeoutOnceItDoesNot() {
        registry.apply(SVC, new Mutation.Register(instance("127.0.0.1"), "node-a:7000"));
        registry.apply(SVC, new Mutation.Register(instance("127.0.0.2"), "node-b:7000"));
        register("127.0.0.3"); // its client beats it: no holder
        clock.advanceMillis(HeartbeatSettings.DEFAULT_DELETE_TIMEOUT_MS);
        registry.apply(SVC, new Mutation.Expire(member -> true));
        assertEquals(3, registry.instances(SVC).size());
        assertTrue(registry.instance(SVC, at("127.0.0.1")).orElseThrow().healthy(), "the holder's lease");
        assertFalse(registry.instance(SVC, at("127.0.0.3")).orElseThrow().healthy(), "no beats, no holder");

        Mutation.Expire nodeAGone = new Mutation.Expire(member -> !member.equals("node-a:7000"));
        clock.advanceMillis(HeartbeatSettings.DEFAULT_TIMEOUT_MS);
        registry.apply(SVC, nodeAGone);
        assertTrue(registry.instance(SVC, at("127.0.0.1")).isPresent(), "exactly at the beat timeout it stays");
        clock.advanceMillis(1);
        registry.apply(SVC, nodeAGone);
        assertEquals(
                Set.of("127.0.0.2"),
                registry.instances(SVC).stream().map(Instance::ip).collect(java.util.stream.Collectors.toSet()),
                "the instance of the gone holder went, the beaten one on its delete timeout");
    }

    @Test
    void aHolderLettingGoRemovesOnlyWhatItStillHolds() {
        registry.apply(SVC, new Mutation.Register(instance("127.0.0.1"), "node-a:7000"));
        registry.apply(SVC, new Mutation.Register(instance("127.0.0.1"), "node-b:7000")); // the client's redo
        assertEquals(Outcome.UNCHANGED, registry.apply(SVC, new Mutation.Deregister(at("127.0.0.1"), "node-a:7000")));
        assertTrue(registry.instance(SVC, at("127.0.0.1")).isPresent());
        assertEquals(Map.of(SVC, Set.of(at("127.0.0.1"))), registry.heldBy("node-b:7000"));
        assertEquals(Map.of(), registry.heldBy("node-a:7000"));
        assertEquals(Outcome.CHANGED, registry.apply(SVC, new Mutation.Deregister(at("127.0.0.1"), "node-b:7000")));
        assertTrue(registry.instance(SVC, at("127.0.0.1")).isEmpty());
    }

    @Test
    void registeringAgainThroughAnotherMemberMakesItTheHolderAndReplicatesAsAChange() {
        registry.apply(SVC, new Mutation.Register(instance("127.0.0.1"), "node-a:7000"));
        long before = registry.copy(SVC).orElseThrow().entries().get(0).version();
        changes.clear();
        assertEquals(
                Outcome.CHANGED,
                registry.apply(SVC, new Mutation.Register(instance("127.0.0.1"), "node-b:7000")),
                "the client's redo through node-b");
        ServiceCopy.Entry entry = registry.copy(SVC).orElseThrow().entries().get(0);
        assertEquals("node-b:7000", entry.holder());
        assertTrue(entry.version() > before, "a new version, so that replicas and the heir learn the holder");
        assertEquals(List.of(SVC), changes);

        clock.advanceMillis(HeartbeatSettings.DEFAULT_TIMEOUT_MS + 1);
        registry.apply(SVC, new Mutation.Expire(member -> !member.equals("node-a:7000")));
        assertEquals(1, registry.instances(SVC).size(), "node-a's death no longer concerns it");

        EphemeralRegistry replica = new EphemeralRegistry(clock, ExpiryRules.DEFAULT, k -> {});
        replica.apply(SVC, new Mutation.Merge(registry.copy(SVC).orElseThrow()));
        clock.advanceMillis(1);
        replica.apply(SVC, new Mutation.Expire(member -> !member.equals("node-b:7000")));
        assertEquals(1, replica.instances(SVC).size(), "a replica starts its beat time at the merge, holder included");
        clock.advanceMillis(HeartbeatSettings.DEFAULT_TIMEOUT_MS);
        replica.apply(SVC, new Mutation.Expire(member -> !member.equals("node-b:7000")));
        assertTrue(replica.instances(SVC).isEmpty(), "the merged copy carried node-b as the holder");
    }

    @Test
    void aBeatKeepsAnInstanceAliveAndMakesItHealthyAgain() {
        register("127.0.0.1");
        expireAfter(Duration.ofSeconds(16));
        assertFalse(registry.instances(SVC).get(0).healthy());
        changes.clear();
        assertEquals(Outcome.CHANGED, registry.apply(SVC, new Mutation.Beat(at("127.0.0.1"))));
        assertTrue(registry.instances(SVC).get(0).healthy());
        assertEquals(List.of(SVC), changes);
        assertEquals(
                Outcome.UNCHANGED,
                registry.apply(SVC, new Mutation.Beat(at("127.0.0.1"))),
                "healthy already: nothing visible");
        expireAfter(Duration.ofSeconds(29));
        assertEquals(1, registry.instances(SVC).size(), "the beat restarted the clock");
        assertEquals(Outcome.NOT_FOUND, registry.apply(SVC, new Mutation.Beat(at("127.9.9.9"))));
    }

    @Test
    void timeoutsComeFromEachInstancesMetadata() {
        registry.apply(
                SVC,
                new Mutation.Register(instance("127.0.0.1")
                        .withMetadata(Map.of(
                                HeartbeatSettings.INTERVAL_KEY,
                                "1000",
                                HeartbeatSettings.TIMEOUT_KEY,
                                "3000",
                                HeartbeatSettings.DELETE_TIMEOUT_KEY,
                                "6000"))));
        register("127.0.0.2");
        expireAfter(Duration.ofMillis(3001));
        assertFalse(registry.instance(SVC, at("127.0.0.1")).orElseThrow().healthy());
        assertTrue(registry.instance(SVC, at("127.0.0.2")).orElseThrow().healthy());
        expireAfter(Duration.ofMillis(3000));
        assertTrue(registry.instance(SVC, at("127.0.0.1")).isEmpty());
        assertTrue(registry.instance(SVC, at("127.0.0.2")).isPresent());
    }

    @Test
    void everyInstanceExpiringAtOnceEmptiesTheServiceAtItsDeleteTimeout() {
        register("127.0.0.1");
        register("127.0.0.2");
        expireAfter(Duration.ofSeconds(16));
        assertEquals(
                List.of(false, false),
                registry.instances(SVC).stream().map(Instance::healthy).toList(),
                "both unhealthy after the beat timeout");
        changes.clear();
        expireAfter(Duration.ofSeconds(15));
        assertTrue(registry.instances(SVC).isEmpty(), "both gone after the delete timeout, nothing kept");
        assertEquals(List.of(SVC), changes, "the emptying is news to subscribers");
    }

    @Test
    void theLastInstanceOfAServiceExpiresLikeAnyOther() {
        register("127.0.0.1");
        expireAfter(Duration.ofSeconds(16));
        assertFalse(registry.instance(SVC, at("127.0.0.1")).orElseThrow().healthy());
        expireAfter(Duration.ofSeconds(15));
        assertTrue(registry.instances(SVC).isEmpty());
    }

    @Test
    void anEmptyServiceIsForgottenAfterItsTtl() {
        register("127.0.0.1");
        registry.apply(SVC, new Mutation.Deregister(at("127.0.0.1")));
        expireAfter(Duration.ofSeconds(59));
        assertTrue(registry.contains(SVC));
        expireAfter(Duration.ofSeconds(1));
        assertFalse(registry.contains(SVC));
    }

    @Test
    void modifyEditsInPlaceButMayNotMoveAnInstance() {
        register("127.0.0.1");
        assertEquals(Outcome.CHANGED, registry.apply(SVC, new Mutation.Modify(at("127.0.0.1"), i -> i.withWeight(5))));
        assertEquals(
                Outcome.UNCHANGED, registry.apply(SVC, new Mutation.Modify(at("127.0.0.1"), i -> i.withWeight(5))));
        assertEquals(Outcome.NOT_FOUND, registry.apply(SVC, new Mutation.Modify(at("127.0.0.9"), i -> i)));
        assertThrows(
                IllegalArgumentException.class,
                () -> registry.apply(SVC, new Mutation.Modify(at("127.0.0.1"), i -> i.withCluster("ELSEWHERE"))));
        assertEquals(5, registry.instances(SVC).get(0).weight());
        assertEquals("DEFAULT", registry.instances(SVC).get(0).cluster());
    }

    @Test
    void copyAndMergeCarryAServiceWholeWithAMatchingChecksum() {
        register("127.0.0.1");
        register("127.0.0.2");
        ServiceCopy copy = registry.copy(SVC).orElseThrow();
        EphemeralRegistry replica = new EphemeralRegistry(clock, ExpiryRules.DEFAULT, changes::add);
        changes.clear();
        assertEquals(Outcome.CHANGED, replica.merge(copy));
        assertEquals(
                registry.snapshot(SVC).orElseThrow().checksum(),
                replica.snapshot(SVC).orElseThrow().checksum());
        assertEquals(registry.instances(SVC), replica.instances(SVC));
        assertEquals(List.of(SVC), changes);
        assertEquals(Outcome.UNCHANGED, replica.merge(copy), "the same copy again changes nothing");

        registry.apply(SVC, new Mutation.Deregister(at("127.0.0.1")));
        assertEquals(
                Outcome.CHANGED, replica.merge(registry.copy(SVC).orElseThrow()), "the removal travels with the copy");
        assertEquals(List.of("127.0.0.2"), ips(replica));
    }

    @Test
    void aBadCopyLeavesTheServiceAsItWas() {
        register("127.0.0.1");
        ServiceCopy bad = new ServiceCopy(
                SVC,
                List.of(
                        ServiceCopy.Entry.live(instance("127.0.0.5"), Long.MAX_VALUE, null),
                        ServiceCopy.Entry.live(
                                Instance.of("127.0.0.6", 1).withEphemeral(false), Long.MAX_VALUE, null)));
        assertThrows(IllegalArgumentException.class, () -> registry.merge(bad));
        assertEquals(List.of("127.0.0.1"), ips(registry));
    }

    @Test
    void aRemovalOutranksTheCopyItFollowedWhateverTheMembersClocks() {
        register("127.0.0.1");
        register("127.0.0.2");
        ServiceCopy before = registry.copy(SVC).orElseThrow();
        // a member whose clock is an hour behind copies the service, then removes an instance
        EphemeralRegistry behind =
                new EphemeralRegistry(new MutableClock(1_000_000 - 3_600_000), ExpiryRules.DEFAULT, s -> {});
        behind.merge(before);
        behind.apply(SVC, new Mutation.Deregister(at("127.0.0.1")));
        assertEquals(Outcome.CHANGED, registry.merge(behind.copy(SVC).orElseThrow()));
        assertEquals(List.of("127.0.0.2"), ips(registry));
        assertEquals(Outcome.UNCHANGED, registry.merge(before), "the older copy does not bring the instance back");
        assertEquals(Outcome.UNCHANGED, behind.merge(before));
        assertEquals(List.of("127.0.0.2"), ips(behind));
    }

    @Test
    void changesMadeOnTwoMembersAtOnceAreBothKeptAndTheLaterEditOfOneInstanceWins() {
        register("127.0.0.1");
        register("127.0.0.2");
        EphemeralRegistry other = new EphemeralRegistry(clock, ExpiryRules.DEFAULT, s -> {});
        other.merge(registry.copy(SVC).orElseThrow());
        // cut off from each other: each side registers, removes and edits on its own
        registry.apply(SVC, new Mutation.Register(instance("127.0.0.3")));
        registry.apply(SVC, new Mutation.Modify(at("127.0.0.2"), i -> i.withWeight(5)));
        clock.advance(Duration.ofSeconds(1));
        other.apply(SVC, new Mutation.Register(instance("127.0.0.4")));
        other.apply(SVC, new Mutation.Deregister(at("127.0.0.1")));
        other.apply(SVC, new Mutation.Modify(at("127.0.0.2"), i -> i.withWeight(7)));
        // healed: merged both ways, in either order, to the same result
        ServiceCopy mine = registry.copy(SVC).orElseThrow();
        registry.merge(other.copy(SVC).orElseThrow());
        other.merge(mine);
        assertEquals(Set.of("127.0.0.2", "127.0.0.3", "127.0.0.4"), Set.copyOf(ips(registry)));
        assertEquals(
                registry.snapshot(SVC).orElseThrow().checksum(),
                other.snapshot(SVC).orElseThrow().checksum());
        assertEquals(7, registry.instance(SVC, at("127.0.0.2")).orElseThrow().weight(), "the later edit");
    }

    @Test
    void aRemovalIsRememberedForAMinuteAndThenForgotten() {
        register("127.0.0.1");
        register("127.0.0.2");
        registry.apply(SVC, new Mutation.Deregister(at("127.0.0.1")));
        assertTrue(registry.copy(SVC).orElseThrow().entries().stream().anyMatch(e -> !e.live()));
        clock.advance(Duration.ofSeconds(61));
        registry.apply(SVC, new Mutation.Beat(at("127.0.0.2")));
        assertTrue(registry.copy(SVC).orElseThrow().entries().stream().allMatch(ServiceCopy.Entry::live));
    }

    @Test
    void everyRemovedAddressRefusesItsOlderCopyUntilRegisteredAgain() {
        register("127.0.0.1");
        register("127.0.0.2");
        register("127.0.0.3");
        ServiceCopy before = registry.copy(SVC).orElseThrow();
        for (String ip : List.of("127.0.0.1", "127.0.0.2", "127.0.0.3")) {
            registry.apply(SVC, new Mutation.Deregister(at(ip)));
        }
        assertEquals(Outcome.UNCHANGED, registry.merge(before), "no removed address comes back");
        assertEquals(List.of(), ips(registry));
        register("127.0.0.2");
        assertEquals(
                Set.of("127.0.0.1", "127.0.0.3"),
                registry.copy(SVC).orElseThrow().entries().stream()
                        .filter(e -> !e.live())
                        .map(e -> e.address().ip())
                        .collect(java.util.stream.Collectors.toSet()),
                "registered again, the address is no longer a removal");
        assertEquals(Outcome.UNCHANGED, registry.merge(before));
        assertEquals(List.of("127.0.0.2"), ips(registry));
    }

    private static List<String> ips(EphemeralRegistry r) {
        return r.instances(SVC).stream().map(Instance::ip).toList();
    }

    @Test
    void monitorChecksOnlyTheServicesThisNodeIsResponsibleFor() {
        register("127.0.0.1");
        registry.apply(OTHER, new Mutation.Register(Instance.of("127.0.0.2", 1).withDefaultId(OTHER)));
        try (HeartbeatMonitor monitor = new HeartbeatMonitor(registry, s -> s.equals(SVC), member -> true)) {
            clock.advance(Duration.ofSeconds(31));
            monitor.checkNow();
        }
        assertTrue(registry.instances(SVC).isEmpty());
        assertEquals(1, registry.instances(OTHER).size(), "not ours: its owner ages it");
    }

    @Test
    void removeIfEmptyRefusesAServiceWithInstances() {
        assertEquals(EphemeralRegistry.RemoveOutcome.ABSENT, registry.removeIfEmpty(SVC));
        register("127.0.0.1");
        assertEquals(EphemeralRegistry.RemoveOutcome.NOT_EMPTY, registry.removeIfEmpty(SVC));
        registry.apply(SVC, new Mutation.Deregister(at("127.0.0.1")));
        assertEquals(EphemeralRegistry.RemoveOutcome.REMOVED, registry.removeIfEmpty(SVC));
        assertFalse(registry.contains(SVC));
    }
}
