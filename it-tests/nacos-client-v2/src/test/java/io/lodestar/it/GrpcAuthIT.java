package io.lodestar.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.alibaba.nacos.api.config.ConfigService;
import com.alibaba.nacos.api.exception.NacosException;
import com.alibaba.nacos.api.naming.NamingService;
import io.lodestar.kv.testing.Await;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The unmodified client against a server with {@code --auth on}: given the generated admin's name
 * and password it logs in over HTTP and sends its token with every gRPC request, so configs and
 * instances work as without auth; without them it is refused and changes nothing.
 */
class GrpcAuthIT {
    @BeforeAll
    static void clientHome() {
        NacosClientHome.init(); // before any nacos-client class loads
    }

    @RegisterExtension
    final LodestarCluster cluster = new LodestarCluster();

    @RegisterExtension
    final OfficialClients clients = new OfficialClients();

    private static String adminPassword(ServerProcess p) {
        Path file = p.dataDir.resolve("initial-admin-password");
        return Await.result(
                Duration.ofSeconds(30),
                "the admin's password file",
                () -> Files.exists(file) ? Files.readString(file).trim() : null);
    }

    @Test
    void aClientWithTheAdminsPasswordWorksAndOneWithoutChangesNothing() throws Exception {
        ServerProcess server = cluster.standalone("auth", "--auth", "on").start();
        server.awaitReady(); // not settled: that reads the cluster view, which needs a token
        String password = adminPassword(server);
        assertTrue(server.logText().contains("created the admin user 'nacos'"), "the log says where the password is");

        ConfigService config = clients.config(server.httpAddress(), "nacos", password);
        assertTrue(config.publishConfig("guarded", "G", "secret: 1"));
        assertEquals("secret: 1", config.getConfig("guarded", "G", 5_000));
        NamingService naming = clients.naming(server.httpAddress(), "nacos", password);
        naming.registerInstance("guarded-svc", "127.0.0.61", 6100);
        Await.until(
                Duration.ofSeconds(10),
                "listed",
                () -> naming.getAllInstances("guarded-svc").size() == 1);

        ConfigService anonymous = clients.config(server.httpAddress(), null);
        assertFalse(anonymous.publishConfig("guarded", "G", "overwritten"), "refused");
        assertThrows(NacosException.class, () -> anonymous.getConfig("guarded", "G", 3_000));
        ConfigService wrong = clients.config(server.httpAddress(), "nacos", "not-the-password");
        assertFalse(wrong.publishConfig("guarded", "G", "overwritten"), "a failed login gets no token");
        assertEquals("secret: 1", config.getConfig("guarded", "G", 5_000), "nothing changed");

        Http.Response noToken = Http.get(server.httpAddress(), "/nacos/v1/cs/configs?dataId=guarded&group=G");
        assertEquals(403, noToken.status());
        assertNotEquals("secret: 1", noToken.body());
    }
}
