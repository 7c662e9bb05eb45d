package io.lodestar.it;

import io.lodestar.kv.testing.Await;
import io.lodestar.kv.testing.FreePorts;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * Whether the packaged server has the naming HTTP API yet (it is built on another branch). Asked
 * once per test JVM of a throw-away standalone node, outside any test's {@link LodestarCluster}, so a test
 * skipped for its absence leaves no server logs behind.
 */
final class NamingApi {
    private static Boolean present;

    private NamingApi() {}

    /** True unless {@code POST /nacos/v1/ns/instance} is an unknown route (404); the real handler rejects the empty form otherwise. */
    static synchronized boolean present() {
        if (present == null) {
            Path dir;
            try {
                dir = Files.createTempDirectory("lodestar-naming-probe-");
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            ServerProcess probe = new ServerProcess(
                    dir, "probe", FreePorts.nextPair(ServerProcess.GRPC_OFFSET), FreePorts.next(), List.of());
            try {
                probe.start();
                // liveness is enough: routes are installed before HTTP answers
                Await.until(Duration.ofSeconds(60), "the probe node serving HTTP", () -> {
                    if (!probe.alive()) {
                        throw new AssertionError("probe node exited:\n" + probe.logText());
                    }
                    return Http.get(probe.httpAddress(), "/nacos/v1/console/health/liveness")
                                    .status()
                            == 200;
                });
                present = answersInstance(probe.httpAddress());
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            } finally {
                probe.kill();
                LodestarCluster.deleteTree(dir);
            }
        }
        return present;
    }

    static boolean answersInstance(String httpAddress) throws IOException {
        return Http.postForm(httpAddress, "/nacos/v1/ns/instance", Http.params())
                        .status()
                != 404;
    }
}
