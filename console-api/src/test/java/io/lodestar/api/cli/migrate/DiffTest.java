package io.lodestar.api.cli.migrate;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.lodestar.api.cli.migrate.Items.Beta;
import io.lodestar.api.cli.migrate.Items.Cluster;
import io.lodestar.api.cli.migrate.Items.Config;
import io.lodestar.api.cli.migrate.Items.ConfigKey;
import io.lodestar.api.cli.migrate.Items.Instance;
import io.lodestar.api.cli.migrate.Items.Namespace;
import io.lodestar.api.cli.migrate.Items.Service;
import io.lodestar.api.cli.migrate.Items.ServiceKey;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The plan for one item: create, update naming the fields, or nothing; and what counts as the same. */
class DiffTest {
    private static final ConfigKey KEY = new ConfigKey("dev", "G", "app.yaml");

    @Test
    void anItemTheTargetLacksIsCreated() {
        assertEquals(
                Diff.Action.CREATE,
                Diff.of(config("a", "yaml"), Optional.empty()).action());
    }

    @Test
    void anEqualItemIsUnchangedAndADifferentOneNamesEachDifferingField() {
        assertEquals(Diff.UNCHANGED, Diff.of(config("a", "yaml"), Optional.of(config("a", "yaml"))));
        Diff diff = Diff.of(config("a", "yaml"), Optional.of(config("b", "json")));
        assertEquals(Diff.Action.UPDATE, diff.action());
        assertEquals(List.of("content", "type"), diff.fields());
    }

    @Test
    void spellingsOfTheSameValueAreTheSame() {
        // the public namespace as "" or "public"; no type as text; tags and beta IPs in any order
        assertEquals(new ConfigKey("public", "G", "d"), new ConfigKey("", "G", "d"));
        assertEquals(new Config(KEY, "c", null, null, "b, a,a", null), new Config(KEY, "c", "text", "", "a,b", ""));
        assertEquals(new Beta(KEY, "c", "10.0.0.2,10.0.0.1"), new Beta(KEY, "c", "10.0.0.1, 10.0.0.2"));
        assertEquals(new Namespace("dev", null, null), new Namespace("dev", "dev", ""));
        // a TCP probe has no path or codes; Nacos writes the code as a number, Lodestar as text
        assertEquals(new Cluster("TCP", "/x", "200", 80, true), Cluster.DEFAULT);
        assertEquals(
                new Cluster("http", "/health", "200", 8080, false), new Cluster("HTTP", "/health", "200", 8080, false));
        assertEquals(
                new Service(new ServiceKey("", "G", "s"), 0.30000001, Map.of("b", "2", "a", "1"), Map.of()),
                new Service(new ServiceKey("public", "G", "s"), 0.3, Map.of("a", "1", "b", "2"), Map.of()));
    }

    @Test
    void anInstancesHealthIsNotComparedButItsWeightEnabledAndMetadataAre() {
        Instance source = instance(2, true, true, Map.of("zone", "a"));
        Set<String> ignored = Set.of("healthy");
        assertEquals(
                Diff.UNCHANGED, Diff.of(source, Optional.of(instance(2, true, false, Map.of("zone", "a"))), ignored));
        assertEquals(
                List.of("weight", "enabled", "metadata"),
                Diff.of(source, Optional.of(instance(1, false, true, Map.of())), ignored)
                        .fields());
    }

    @Test
    void aServiceCreatedOrUpdatedWithItsClustersCombines() {
        Diff clusters = new Diff(Diff.Action.UPDATE, List.of("clusters"));
        assertEquals(Diff.CREATE, Diff.CREATE.and(clusters));
        assertEquals(clusters, Diff.UNCHANGED.and(clusters));
        assertEquals(
                List.of("protectThreshold", "clusters"),
                new Diff(Diff.Action.UPDATE, List.of("protectThreshold"))
                        .and(clusters)
                        .fields());
        assertEquals(Diff.UNCHANGED, Diff.UNCHANGED.and(Diff.UNCHANGED));
    }

    private static Config config(String content, String type) {
        return new Config(KEY, content, type, "d", "t1,t2", "app");
    }

    private static Instance instance(double weight, boolean enabled, boolean healthy, Map<String, String> metadata) {
        return new Instance(
                new ServiceKey("", "DEFAULT_GROUP", "orders"),
                "A",
                "10.0.0.1",
                80,
                weight,
                enabled,
                healthy,
                false,
                metadata);
    }
}
