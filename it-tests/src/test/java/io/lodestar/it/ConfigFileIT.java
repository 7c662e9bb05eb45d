package io.lodestar.it;

import static io.lodestar.it.Http.params;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code lodestar server --config FILE} as a real process: what the file sets takes effect unless a
 * LODESTAR_* variable or a flag sets it too, the start-up log names the file and where each setting
 * came from with the cluster secret masked, and a bad file or an unknown variable stops the start
 * with exit code 2 naming the line or the variable.
 */
class ConfigFileIT {
    @RegisterExtension
    final LodestarCluster cluster = new LodestarCluster();

    @TempDir
    Path dir;

    private static Http.Response publish(ServerProcess p, String content) throws Exception {
        return Http.postForm(
                p.httpAddress(),
                ConfigApi.CONFIGS,
                params("dataId", "conf-it", "group", ConfigApi.GROUP, "content", content));
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void theFileSetsWhatNoVariableOrFlagSetsAndTheLogSaysWhereEachCameFrom() throws Exception {
        Path file = dir.resolve("lodestar.properties");
        Files.writeString(
                file,
                String.join(
                        "\n",
                        "# the harness gives --host, --port, --raft-port, --data-dir, --auth as flags",
                        "grpc-port = -1",
                        "http.body-bytes = 64KiB",
                        "port = 1",
                        ""));
        Path shown = file.toAbsolutePath().normalize();
        ServerProcess node = cluster.standalone("conf", "--config", file.toString())
                .withEnv("LODESTAR_LIMIT_HTTP_BODY_BYTES", "4KiB");
        node.start();
        node.awaitSettled(); // on the harness's --port: the flag beat the file's port

        // the environment beat the file's 64KiB
        assertEquals(413, publish(node, "x".repeat(6000)).status());
        assertEquals(200, publish(node, "x".repeat(2000)).status());
        // the file beat the default (HTTP port + 1000): no gRPC port
        assertThrows(
                IOException.class, () -> new Socket("127.0.0.1", node.httpPort + ServerProcess.GRPC_OFFSET).close());

        String log = node.logText();
        assertTrue(log.contains("settings file: " + shown), log);
        assertTrue(log.contains("grpc-port = -1 (from " + shown + " line 2)"), log);
        assertTrue(log.contains("port = " + node.httpPort + " (from the command line)"), log);
        assertTrue(
                log.contains("http.body-bytes = 4KiB (from environment variable LODESTAR_LIMIT_HTTP_BODY_BYTES)"), log);
        assertTrue(log.contains("cluster-secret = **** (from environment variable LODESTAR_CLUSTER_SECRET)"), log);
        assertFalse(log.contains(LodestarCluster.SECRET), "the log shows the cluster secret");
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void aMalformedValueStopsTheStartWithExit2NamingFileLineAndKey() throws Exception {
        Path file = dir.resolve("bad.properties");
        Files.writeString(file, "# fine so far\nport = 8848\nhttp.body-bytes = lots\n");
        ServerProcess node =
                cluster.standalone("bad", "--config", file.toString()).start();
        assertEquals(2, node.waitExit(Duration.ofSeconds(45)), node.logText());
        assertTrue(
                node.logText().contains(file.toAbsolutePath().normalize() + " line 3: http.body-bytes"),
                node.logText());
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void anUnknownLodestarVariableStopsTheStartWithExit2NamingIt() {
        ServerProcess node =
                cluster.standalone("typo").withEnv("LODESTAR_DATADIR", "/tmp/x").start();
        assertEquals(2, node.waitExit(Duration.ofSeconds(45)), node.logText());
        assertTrue(node.logText().contains("LODESTAR_DATADIR is not a setting"), node.logText());
    }
}
