package io.lodestar.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.alibaba.nacos.api.config.ConfigService;
import com.alibaba.nacos.api.config.listener.AbstractListener;
import com.alibaba.nacos.api.config.listener.Listener;
import io.lodestar.kv.testing.Await;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The official nacos-client 2.x ConfigService, which speaks only gRPC, against real server
 * processes: what a Spring Cloud Alibaba or Dubbo 3 application does with its configs.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class GrpcConfigIT {
    /** How long a listener may take to hear a change: the server pushes at once, the client then queries. */
    private static final long HEAR_S = 10;

    static {
        NacosClientHome.init(); // before any nacos-client class loads
    }

    @RegisterExtension
    final LodestarCluster cluster = new LodestarCluster();

    @RegisterExtension
    final OfficialClients clients = new OfficialClients();

    private ConfigService client(ServerProcess p, String namespace) throws Exception {
        return client(p.httpAddress(), namespace);
    }

    private ConfigService client(String serverAddr, String namespace) throws Exception {
        return clients.config(serverAddr, namespace);
    }

    private static Listener into(BlockingQueue<String> heard) {
        return new AbstractListener() {
            @Override
            public void receiveConfigInfo(String configInfo) {
                heard.add(configInfo == null ? "<null>" : configInfo);
            }
        };
    }

    @Test
    void publishGetCompareAndPublishAndRemoveRoundTrip() throws Exception {
        ConfigService client = client(cluster.startStandalone("grpc-config"), null);
        assertNull(client.getConfig("app.yaml", "G", 3000), "nothing published yet");
        assertTrue(client.publishConfig("app.yaml", "G", "a: 1\nb: \u00e9\u6f22", "yaml"));
        assertEquals("a: 1\nb: \u00e9\u6f22", client.getConfig("app.yaml", "G", 3000));

        String md5 = ConfigApi.md5("a: 1\nb: \u00e9\u6f22");
        assertFalse(client.publishConfigCas("app.yaml", "G", "lost", ConfigApi.md5("stale")), "a stale md5 loses");
        assertTrue(client.publishConfigCas("app.yaml", "G", "a: 2", md5), "the current md5 wins");
        assertEquals("a: 2", client.getConfig("app.yaml", "G", 3000));

        assertTrue(client.removeConfig("app.yaml", "G"));
        assertNull(client.getConfig("app.yaml", "G", 3000), "removed");
    }

    @Test
    void aListenerOnAnotherClientHearsEveryChangeAndNothingAfterItIsRemoved() throws Exception {
        ServerProcess server = cluster.startStandalone("grpc-listen");
        ConfigService writer = client(server, null);
        ConfigService reader = client(server, null);
        assertTrue(writer.publishConfig("listened", "G", "v1"));
        BlockingQueue<String> heard = new LinkedBlockingQueue<>();
        Listener listener = into(heard);
        assertEquals("v1", reader.getConfigAndSignListener("listened", "G", 3000, listener));

        assertTrue(writer.publishConfig("listened", "G", "v2"));
        assertEquals("v2", heard.poll(HEAR_S, TimeUnit.SECONDS), "hears the publish");
        assertTrue(writer.publishConfig("listened", "G", "v3"));
        assertEquals("v3", heard.poll(HEAR_S, TimeUnit.SECONDS), "hears the next one");

        reader.removeListener("listened", "G", listener);
        assertTrue(writer.publishConfig("listened", "G", "v4"));
        assertNull(heard.poll(3, TimeUnit.SECONDS), "nothing after the listener is removed");
    }

    @Test
    void aNamespaceOtherThanPublicIsSeparate() throws Exception {
        ServerProcess server = cluster.startStandalone("grpc-namespace");
        Http.Response created = Http.postForm(
                server.httpAddress(),
                "/nacos/v1/console/namespaces",
                Http.params("customNamespaceId", "team-a", "namespaceName", "team a"));
        assertEquals(200, created.status(), created.body());
        ConfigService inTeam = client(server, "team-a");
        ConfigService inPublic = client(server, null);
        assertTrue(inTeam.publishConfig("shared.yaml", "G", "team"));
        assertTrue(inPublic.publishConfig("shared.yaml", "G", "public"));
        assertEquals("team", inTeam.getConfig("shared.yaml", "G", 3000));
        assertEquals("public", inPublic.getConfig("shared.yaml", "G", 3000));
        assertEquals(
                "team",
                Http.get(server.httpAddress(), "/nacos/v1/cs/configs?dataId=shared.yaml&group=G&tenant=team-a")
                        .body());
    }

    @Test
    void httpAndGrpcClientsSeeEachOthersConfigsAndChanges() throws Exception {
        ServerProcess server = cluster.startStandalone("grpc-mixed");
        ConfigService grpc = client(server, null);
        BlockingQueue<String> heard = new LinkedBlockingQueue<>();
        assertNull(grpc.getConfigAndSignListener("mixed", "G", 3000, into(heard)));

        Http.Response published = Http.postForm(
                server.httpAddress(),
                "/nacos/v1/cs/configs",
                Http.params("dataId", "mixed", "group", "G", "content", "over http"));
        assertEquals(200, published.status(), published.body());
        assertEquals("over http", heard.poll(HEAR_S, TimeUnit.SECONDS), "a publish over HTTP wakes a gRPC listener");

        assertTrue(grpc.publishConfig("mixed", "G", "over grpc"));
        assertEquals(
                "over grpc",
                Http.get(server.httpAddress(), "/nacos/v1/cs/configs?dataId=mixed&group=G")
                        .body());
    }

    @Test
    void aListenerOnAFollowerHearsAPublishMadeThroughAnotherNode() throws Exception {
        List<ServerProcess> nodes = cluster.start(3);
        ServerProcess leader = cluster.leader();
        ServerProcess follower = cluster.othersThan(leader).get(0);
        ConfigService onFollower = client(follower, null);
        ConfigService onLeader = client(leader, null);
        BlockingQueue<String> heard = new LinkedBlockingQueue<>();
        assertNull(onFollower.getConfigAndSignListener("clustered", "G", 3000, into(heard)));
        assertTrue(onLeader.publishConfig("clustered", "G", "from the leader"));
        assertEquals("from the leader", heard.poll(HEAR_S, TimeUnit.SECONDS));
        assertNotNull(nodes);
    }

    @Test
    void aListenerKeepsHearingAfterTheNodeItIsConnectedToIsKilled() throws Exception {
        List<ServerProcess> nodes = cluster.start(3);
        String all =
                String.join(",", nodes.stream().map(ServerProcess::httpAddress).toList());
        ConfigService listening = client(all, null);
        BlockingQueue<String> heard = new LinkedBlockingQueue<>();
        assertNull(listening.getConfigAndSignListener("survives", "G", 3000, into(heard)));
        ServerProcess connected = Await.result(Duration.ofSeconds(10), "the node the client connected to", () -> {
            for (ServerProcess n : nodes) {
                if (GrpcNamingIT.grpcConnections(n) > 0) {
                    return n;
                }
            }
            return null;
        });
        ServerProcess writeTo = cluster.othersThan(connected).get(0);
        assertEquals(200, publishOverHttp(writeTo, "survives", "before").status());
        assertEquals("before", heard.poll(HEAR_S, TimeUnit.SECONDS));

        cluster.kill(connected);
        Await.until(
                Duration.ofSeconds(30),
                "a write through a survivor",
                () -> publishOverHttp(writeTo, "survives", "after").status() == 200);
        assertEquals("after", heard.poll(30, TimeUnit.SECONDS), "heard after the kill, through another node");
    }

    private static Http.Response publishOverHttp(ServerProcess p, String dataId, String content) throws Exception {
        return Http.postForm(
                p.httpAddress(),
                "/nacos/v1/cs/configs",
                Http.params("dataId", dataId, "group", "G", "content", content));
    }
}
