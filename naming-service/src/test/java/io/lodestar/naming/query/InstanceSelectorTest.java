package io.lodestar.naming.query;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lodestar.naming.model.Instance;
import io.lodestar.naming.model.ServiceKey;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.OptionalDouble;
import java.util.Set;
import org.junit.jupiter.api.Test;

class InstanceSelectorTest {
    static final ServiceKey SVC = new ServiceKey("public", "G", "svc");
    static final Instance A = Instance.of("127.0.0.1", 80).withCluster("A");
    static final Instance B = Instance.of("127.0.0.2", 80).withCluster("B");
    static final Instance SICK = Instance.of("127.0.0.3", 80).withCluster("A").withHealthy(false);
    static final Instance OFF = Instance.of("127.0.0.4", 80).withCluster("A").withEnabled(false);

    static OptionalDouble defined(double threshold) {
        return OptionalDouble.of(threshold);
    }

    static List<Instance> hosts(ServiceView v) {
        return v.hosts();
    }

    @Test
    void disabledInstancesAreLeftOut() {
        ServiceView v = InstanceSelector.select(SVC, List.of(A, OFF), defined(0), Set.of(), false, 1);
        assertEquals(List.of(A), hosts(v));
    }

    @Test
    void clustersFilterKeepsOnlyTheNamedClustersAndIsEchoedInOrder() {
        ServiceView v = InstanceSelector.select(
                SVC, List.of(A, B, SICK), defined(0), new LinkedHashSet<>(List.of("B", "Z")), false, 1);
        assertEquals(List.of(B), hosts(v));
        assertEquals("B,Z", v.clusters());
        assertEquals(
                "",
                InstanceSelector.select(SVC, List.of(A), defined(0), Set.of(), false, 1)
                        .clusters());
    }

    @Test
    void healthyOnlyDropsUnhealthyInstances() {
        assertEquals(List.of(A), hosts(InstanceSelector.select(SVC, List.of(A, SICK), defined(0), Set.of(), true, 1)));
        assertEquals(
                List.of(A, SICK),
                hosts(InstanceSelector.select(SVC, List.of(A, SICK), defined(0), Set.of(), false, 1)));
    }

    @Test
    void reachedProtectThresholdListsEveryInstanceReportedHealthy() {
        // 1 healthy of 2 = 0.5 <= 0.5: reached, even with healthyOnly
        ServiceView v = InstanceSelector.select(SVC, List.of(A, SICK), defined(0.5), Set.of(), true, 1);
        assertTrue(v.reachProtectionThreshold());
        assertEquals(List.of(A, SICK.withHealthy(true)), hosts(v));
        ServiceView below = InstanceSelector.select(SVC, List.of(A, SICK), defined(0.4), Set.of(), true, 1);
        assertFalse(below.reachProtectionThreshold());
        assertEquals(List.of(A), hosts(below));
    }

    @Test
    void aDefinedServiceAtThresholdZeroWithNoHealthyInstanceListsThemAllAsNacos2Does() {
        // Nacos 2.x ServiceUtil.selectInstancesWithHealthyProtection: 0 healthy / 1 <= 0 with service metadata
        ServiceView v = InstanceSelector.select(SVC, List.of(SICK), defined(0), Set.of(), false, 1);
        assertTrue(v.reachProtectionThreshold(), "0 healthy / 1 <= 0");
        assertEquals(List.of(SICK.withHealthy(true)), v.hosts());
        assertFalse(
                InstanceSelector.select(SVC, List.of(), defined(0), Set.of(), true, 1)
                        .reachProtectionThreshold(),
                "an empty list never reaches it");
    }

    @Test
    void aServiceWithoutADefinitionHasNoThresholdAndListsADeadInstanceAsUnhealthyAsNacos2Does() {
        // Nacos 2.x: no ServiceMetadata (the service exists only through registrations), no protection
        ServiceView all = InstanceSelector.select(SVC, List.of(SICK), OptionalDouble.empty(), Set.of(), false, 1);
        assertFalse(all.reachProtectionThreshold());
        assertEquals(List.of(SICK), all.hosts(), "the instance as it is: unhealthy");
        ServiceView healthy = InstanceSelector.select(SVC, List.of(SICK), OptionalDouble.empty(), Set.of(), true, 1);
        assertEquals(List.of(), healthy.hosts());
    }

    @Test
    void aThresholdIsMeasuredOverEveryKeptInstanceAlsoForHealthyOnly() {
        // Nacos 1.x doSrvIpxt: 1 healthy / 3 <= 0.5 returns all three, also to healthyOnly
        Instance sick2 = Instance.of("127.0.0.5", 80).withCluster("A").withHealthy(false);
        ServiceView v = InstanceSelector.select(SVC, List.of(A, SICK, sick2), defined(0.5), Set.of(), true, 1);
        assertTrue(v.reachProtectionThreshold());
        assertEquals(3, v.hosts().size());
        assertTrue(v.hosts().stream().allMatch(Instance::healthy));
    }

    @Test
    void answerCarriesGroupedNameTimeAndChecksumOfTheHosts() {
        ServiceView v = InstanceSelector.select(SVC, List.of(A, B), defined(0), Set.of(), false, 1234);
        assertEquals("G@@svc", v.name());
        assertEquals(1234, v.lastRefTime());
        assertEquals(Checksums.of(List.of(B, A)), v.checksum(), "order does not matter");
        assertNotEquals(Checksums.of(List.of(A)), v.checksum());
    }

    @Test
    void checksumSeesEveryVisibleFieldAndIgnoresMetadataOrder() {
        Instance m1 = A.withMetadata(Map.of("a", "1", "b", "2"));
        Instance m2 = A.withMetadata(new java.util.TreeMap<>(Map.of("b", "2", "a", "1")).descendingMap());
        assertEquals(Checksums.of(List.of(m1)), Checksums.of(List.of(m2)));
        String base = Checksums.of(List.of(A));
        for (Instance changed : List.of(
                A.withWeight(2),
                A.withHealthy(false),
                A.withEnabled(false),
                A.withEphemeral(false),
                A.withInstanceId("x"),
                A.withMetadata(Map.of("k", "v")))) {
            assertNotEquals(base, Checksums.of(List.of(changed)), changed.toString());
        }
    }
}
