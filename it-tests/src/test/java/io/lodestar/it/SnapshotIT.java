package io.lodestar.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.lodestar.kv.testing.Await;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code lodestar snapshot save} under publish load, then {@code restore} into a new group of
 * three: the new group holds exactly what the source held at the snapshot's revision (every publish
 * acknowledged before the save, none begun after it, the namespaces, the gray release, the
 * persistent instance), at that revision, and continues from it. Damaged files and a used data
 * directory are refused with nothing written.
 */
class SnapshotIT {
    private static final Pattern REVISION = Pattern.compile("(?m)^revision\\s+(\\d+)$");

    @RegisterExtension
    final LodestarCluster cluster = new LodestarCluster();

    @TempDir
    Path tmp;

    @Test
    @Timeout(value = 240, unit = TimeUnit.SECONDS)
    void aGroupRestoredFromASnapshotSavedUnderLoadHoldsExactlyItsRevision() throws Exception {
        ServerProcess source = cluster.startStandalone("source");
        fillFixedData(source);
        Path file = tmp.resolve("store.snapshot");
        Map<String, String> before;
        Set<String> begunAfter = new java.util.HashSet<>();
        try (PublishLoad load = new PublishLoad("snap", 2, () -> List.of(source)).start()) {
            Await.until(Duration.ofSeconds(30), "publishes before the save", () -> load.acknowledgedCount() >= 200);
            before = Map.copyOf(load.acknowledged());
            CliProcess.Run save = CliProcess.run(
                    Map.of(), "snapshot", "save", "--server", source.httpAddress(), "--out", file.toString());
            long saved = System.nanoTime();
            assertEquals(0, save.exit(), save.toString());
            int atSave = load.acknowledgedCount();
            Await.until(
                    Duration.ofSeconds(30), "publishes after the save", () -> load.acknowledgedCount() >= atSave + 50);
            load.close();
            for (PublishLoad.Outcome o : load.outcomes()) {
                if (o.invokedNanos() > saved) {
                    begunAfter.add(o.dataId());
                }
            }
            System.out.println("save: " + save.out().trim() + "; publishes " + load.statusCounts());
        }
        assertFalse(begunAfter.isEmpty(), "publishes went on after the save");
        assertEquals(
                PosixFilePermissions.fromString("rw-------"),
                Files.getPosixFilePermissions(file),
                "the snapshot file is owner-only");

        CliProcess.Run inspect = CliProcess.run(Map.of(), "snapshot", "inspect", "--in", file.toString());
        assertEquals(0, inspect.exit(), inspect.toString());
        Matcher m = REVISION.matcher(inspect.out());
        assertTrue(m.find(), inspect.out());
        long revision = Long.parseLong(m.group(1));
        assertTrue(inspect.out().contains("checksum ok"), inspect.out());
        System.out.println(inspect.out());

        Map<String, String> atSnapshot = ConfigApi.publicConfigs(source);
        List<ServerProcess> group = cluster.prepare(3);
        String peers =
                String.join(",", group.stream().map(ServerProcess::raftAddress).toList());
        for (ServerProcess p : group) {
            CliProcess.Run restore = CliProcess.run(
                    Map.of(),
                    "snapshot",
                    "restore",
                    "--in",
                    file.toString(),
                    "--data-dir",
                    p.dataDir.toString(),
                    "--peers",
                    peers);
            assertEquals(0, restore.exit(), restore.toString());
        }
        cluster.startPrepared();
        cluster.awaitConverged(Duration.ofSeconds(60));

        for (ServerProcess p : group) {
            Map<String, String> served = ConfigApi.publicConfigs(p);
            for (Map.Entry<String, String> b : before.entrySet()) {
                assertEquals(
                        b.getValue(),
                        served.get(b.getKey()),
                        p + " holds " + b.getKey() + ", acknowledged before the save");
            }
            for (Map.Entry<String, String> s : served.entrySet()) {
                assertEquals(
                        atSnapshot.get(s.getKey()), s.getValue(), p + " holds " + s.getKey() + " as the source did");
            }
            assertFixedData(p);
        }
        long restoredRevision = group.get(0).revision();
        // at most the three new members' HTTP addresses written since: the group starts at the snapshot's revision
        assertTrue(
                restoredRevision >= revision && restoredRevision <= revision + 3,
                "revision " + restoredRevision + " continues from " + revision);
        Set<String> leaked =
                new java.util.HashSet<>(ConfigApi.publicConfigs(group.get(0)).keySet());
        leaked.retainAll(begunAfter);
        assertTrue(leaked.isEmpty(), "no publish begun after the save: " + leaked);
        assertEquals(
                200, ConfigApi.publish(cluster.leader(), "after-restore", "x").status());
        assertTrue(group.get(0).revision() > revision);
        System.out.println("restored group at revision " + restoredRevision + " from the snapshot's " + revision
                + " with " + atSnapshot.size() + " configs; " + before.size() + " acknowledged before the save");
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void damagedFilesAndUsedDirectoriesAreRefusedWithNothingWritten() throws Exception {
        ServerProcess source = cluster.startStandalone("source");
        fillFixedData(source);
        Path file = tmp.resolve("store.snapshot");
        assertEquals(
                0,
                CliProcess.run(Map.of(), "snapshot", "save", "--server", source.httpAddress(), "--out", file.toString())
                        .exit());
        byte[] good = Files.readAllBytes(file);
        Path truncated = tmp.resolve("truncated.snapshot");
        Files.write(truncated, java.util.Arrays.copyOf(good, good.length / 2));
        CliProcess.Run inspect = CliProcess.run(Map.of(), "snapshot", "inspect", "--in", truncated.toString());
        assertEquals(1, inspect.exit(), inspect.toString());
        assertTrue(inspect.stderr().contains("is truncated"), inspect.stderr());

        Path target = tmp.resolve("target");
        CliProcess.Run restore = CliProcess.run(
                Map.of(), "snapshot", "restore", "--in", truncated.toString(), "--data-dir", target.toString());
        assertEquals(2, restore.exit(), restore.toString());
        assertTrue(
                restore.stderr().contains("nothing restored")
                        && restore.stderr().contains("is truncated"),
                restore.stderr());
        assertTrue(!Files.exists(target) || Files.list(target).findAny().isEmpty(), "nothing written into " + target);

        CliProcess.Run used = CliProcess.run(
                Map.of(), "snapshot", "restore", "--in", file.toString(), "--data-dir", source.dataDir.toString());
        assertEquals(2, used.exit(), used.toString());
        assertTrue(used.stderr().contains("is not empty"), used.stderr());
        assertEquals(200, ConfigApi.read(source, "fixed").status(), "the source's own data dir is untouched");

        CliProcess.Run anonymous = CliProcess.run(
                Map.of(),
                "snapshot",
                "save",
                "--server",
                "127.0.0.1:1",
                "--out",
                tmp.resolve("x").toString());
        assertEquals(1, anonymous.exit(), anonymous.toString());
        assertFalse(Files.exists(tmp.resolve("x")), "no file from a failed save");
    }

    private static void fillFixedData(ServerProcess p) throws Exception {
        assertEquals(
                200,
                Http.postForm(
                                p.httpAddress(),
                                "/nacos/v1/console/namespaces",
                                Http.params("customNamespaceId", "ns1", "namespaceName", "one", "namespaceDesc", "d"))
                        .status());
        assertEquals(200, ConfigApi.publish(p, "fixed", "stable").status());
        assertEquals(
                200,
                Http.postForm(
                                p.httpAddress(),
                                ConfigApi.CONFIGS,
                                Http.params(
                                        "dataId",
                                        "in-ns1",
                                        "group",
                                        "G",
                                        "tenant",
                                        "ns1",
                                        "content",
                                        "ns1 content",
                                        "type",
                                        "yaml"))
                        .status());
        assertEquals(
                200,
                Http.postForm(
                                p.httpAddress(),
                                "/nacos/v1/ns/instance",
                                Http.params(
                                        "serviceName", "kept", "ip", "127.0.0.5", "port", "8080", "ephemeral", "false"))
                        .status());
    }

    private static void assertFixedData(ServerProcess p) throws Exception {
        assertTrue(ConfigApi.namespaces(p).contains("ns1"), p + " namespaces " + ConfigApi.namespaces(p));
        assertEquals("stable", ConfigApi.read(p, "fixed").body());
        Http.Response inNs = Http.get(p.httpAddress(), ConfigApi.CONFIGS + "?dataId=in-ns1&group=G&tenant=ns1");
        assertEquals("ns1 content", inNs.body());
        JsonNode hosts = Http.json(p.httpAddress(), "/nacos/v1/ns/instance/list?serviceName=kept")
                .get("hosts");
        assertEquals(1, hosts.size(), p + " instances " + hosts);
        assertEquals("127.0.0.5", hosts.get(0).get("ip").asText());
    }
}
