package io.lodestar.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.alibaba.nacos.api.naming.NamingService;
import com.fasterxml.jackson.databind.JsonNode;
import io.lodestar.kv.testing.Await;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Moving clients between nodes with {@code ConnectResetRequest}: a node at its connection limit
 * sends a new client away, and an operator sends a loaded node's clients to another one; the
 * clients' instances stay registered throughout.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class GrpcRebalanceIT {
    private static final Duration SOON = Duration.ofSeconds(10);

    static {
        NacosClientHome.init(); // before any nacos-client class loads
    }

    @RegisterExtension
    final LodestarCluster cluster = new LodestarCluster();

    @RegisterExtension
    final OfficialClients clients = new OfficialClients();

    @Test
    void aNodeAtItsLimitTurnsANewClientAwayUntilAConnectionIsFree() throws Exception {
        ServerProcess server = cluster.startStandalone("grpc-limit", "--limit", "grpc.connections=1");
        NamingService first = clients.naming(server.httpAddress());
        first.registerInstance("limited", "127.0.0.81", 8100);
        assertEquals(1, GrpcNamingIT.grpcConnections(server));

        NamingService second = clients.naming(server.httpAddress());
        Await.until(
                SOON,
                "the second client turned away, and again when it retries",
                () -> server.logText().split("holds its limit of 1 connections", -1).length > 2);
        assertEquals(Set.of("127.0.0.81:8100"), healthy(server, "limited"), "the first client is undisturbed");
        first.registerInstance("limited", "127.0.0.81", 8101);
        Await.until(SOON, "and still served", () -> healthy(server, "limited").equals(Set.of("127.0.0.81:8101")));

        clients.shutDown(first);
        Await.until(Duration.ofSeconds(20), "the second client connected", () -> "UP".equals(second.getServerStatus()));
        second.registerInstance("limited", "127.0.0.82", 8200);
        Await.until(
                SOON,
                "the second client's instance listed, the first's gone with it",
                () -> healthy(server, "limited").equals(Set.of("127.0.0.82:8200")));
    }

    /**
     * In network namespaces: the client takes a server it is sent to only if its list has one of
     * that IP (it then uses the port from its list), so the nodes need IPs of their own.
     */
    @Test
    void anOperatorSendsANodesClientsToTheNodeItNamesAndTheirInstancesStay() throws Exception {
        List<ServerProcess> nodes = cluster.startInNamespaces(3);
        NamingService moved = clients.naming(
                String.join(",", nodes.stream().map(ServerProcess::httpAddress).toList()));
        moved.registerInstance("rebalanced", "127.0.0.83", 8300);
        ServerProcess from = Await.result(
                SOON,
                "the node the client connected to",
                () -> nodes.stream()
                        .filter(n -> GrpcNamingIT.grpcConnections(n) == 1)
                        .findFirst()
                        .orElse(null));
        ServerProcess to = cluster.othersThan(from).get(1);
        Await.until(SOON, "listed", () -> healthy(to, "rebalanced").equals(Set.of("127.0.0.83:8300")));
        JsonNode current = Http.json(from.httpAddress(), "/nacos/v2/core/loader/current");
        assertEquals(1, current.size(), current.toString());

        Http.Response reload = Http.postForm(
                from.httpAddress(),
                "/nacos/v2/core/loader/reloadCurrent",
                Map.of("count", "0", "redirectAddress", to.httpAddress()));
        assertEquals(200, reload.status(), reload.body());
        Await.until(
                SOON,
                "the client connected to the node it was sent to",
                () -> GrpcNamingIT.grpcConnections(to) == 1 && GrpcNamingIT.grpcConnections(from) == 0);
        Await.holdsFor(
                Duration.ofSeconds(10),
                "listed healthy while and after it moves",
                () -> healthy(from, "rebalanced").equals(Set.of("127.0.0.83:8300")));
        moved.registerInstance("rebalanced", "127.0.0.84", 8400);
        Await.until(
                SOON,
                "a registration through its new node",
                () -> healthy(from, "rebalanced").equals(Set.of("127.0.0.84:8400")));
    }

    @Test
    void reloadCurrentNamesWhatIsWrongWithItsParameters() throws Exception {
        ServerProcess server = cluster.startStandalone("grpc-reload-input");
        for (String[] bad : new String[][] {
            {"", "count"},
            {"count=", "count"},
            {"count=-1", "count"},
            {"count=many", "count"},
            {"count=0&redirectAddress=nowhere", "redirectAddress"},
            {"count=0&redirectAddress=host:99999", "redirectAddress"},
            {"count=0&redirectAddress=host:port", "redirectAddress"},
            {"count=0&redirectAddress=127.0.0.66:8848", "redirectAddress"}, // not a member
        }) {
            Http.Response r =
                    Http.postForm(server.httpAddress(), "/nacos/v2/core/loader/reloadCurrent?" + bad[0], Map.of());
            assertEquals(400, r.status(), bad[0] + ": " + r.body());
            assertTrue(r.body().contains(bad[1]), bad[0] + " names " + bad[1] + ": " + r.body());
        }
        Http.Response overGet = Http.get(server.httpAddress(), "/nacos/v2/core/loader/reloadCurrent?count=0");
        assertTrue(overGet.status() == 404 || overGet.status() == 405, "GET is refused: " + overGet.status());
    }

    private static Set<String> healthy(ServerProcess p, String service) throws Exception {
        return GrpcNamingIT.listedOverHttp(p, service, true);
    }
}
