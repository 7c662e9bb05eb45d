package io.lodestar.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.alibaba.nacos.api.NacosFactory;
import com.alibaba.nacos.api.PropertyKeyConst;
import com.alibaba.nacos.api.config.ConfigService;
import com.alibaba.nacos.api.exception.NacosException;
import com.alibaba.nacos.api.naming.NamingService;
import io.lodestar.kv.testing.Await;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The unmodified nacos-client 1.4.7 (HTTP) against a server with {@code --auth on}: with the
 * generated admin's name and password it logs in and sends its token with every call; without
 * them, or with a wrong password, it is refused and changes nothing.
 */
class NacosClientAuthIT {
    static {
        NacosClientHome.init(); // before any nacos-client class loads
    }

    @RegisterExtension
    final LodestarCluster cluster = new LodestarCluster();

    private final List<AutoCloseable> clients = new ArrayList<>();

    @AfterEach
    void shutDownClients() throws Exception {
        for (AutoCloseable c : clients) {
            c.close();
        }
    }

    private static Properties props(ServerProcess p, String username, String password) {
        Properties props = new Properties();
        props.put(PropertyKeyConst.SERVER_ADDR, p.httpAddress());
        if (username != null) {
            props.put(PropertyKeyConst.USERNAME, username);
            props.put(PropertyKeyConst.PASSWORD, password);
        }
        return props;
    }

    private ConfigService config(ServerProcess p, String username, String password) throws NacosException {
        ConfigService c = NacosFactory.createConfigService(props(p, username, password));
        clients.add(c::shutDown);
        return c;
    }

    private NamingService naming(ServerProcess p, String username, String password) throws NacosException {
        NamingService n = NacosFactory.createNamingService(props(p, username, password));
        clients.add(n::shutDown);
        return n;
    }

    /** 1.4.7 answers a refused publish by throwing, where 2.x answers false. */
    private static boolean refused(java.util.concurrent.Callable<Boolean> publish) throws Exception {
        try {
            return !publish.call();
        } catch (NacosException e) {
            return e.getErrCode() == 403;
        }
    }

    @Test
    void theClientLogsInWithTheGeneratedAdminAndIsRefusedWithout() throws Exception {
        ServerProcess server = cluster.standalone("auth-1x", "--auth", "on").start();
        server.awaitReady(); // not settled: that reads the cluster view, which needs a token
        Path file = server.dataDir.resolve("initial-admin-password");
        String password = Await.result(
                Duration.ofSeconds(30),
                "the admin's password file",
                () -> Files.exists(file) ? Files.readString(file).trim() : null);

        ConfigService config = config(server, "nacos", password);
        assertTrue(config.publishConfig("guarded-1x", "G", "secret: 1"));
        assertEquals("secret: 1", config.getConfig("guarded-1x", "G", 5_000));
        NamingService naming = naming(server, "nacos", password);
        naming.registerInstance("guarded-1x", "127.0.0.62", 6200);
        Await.until(
                Duration.ofSeconds(10),
                "listed",
                () -> naming.getAllInstances("guarded-1x").size() == 1);

        ConfigService anonymous = config(server, null, null);
        assertTrue(refused(() -> anonymous.publishConfig("guarded-1x", "G", "overwritten")));
        assertThrows(NacosException.class, () -> anonymous.getConfig("guarded-1x", "G", 3_000));
        ConfigService wrong = config(server, "nacos", "not-the-password");
        assertTrue(
                refused(() -> wrong.publishConfig("guarded-1x", "G", "overwritten")), "a failed login gets no token");
        assertEquals("secret: 1", config.getConfig("guarded-1x", "G", 5_000), "nothing changed");
    }
}
