package io.lodestar.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.alibaba.nacos.api.config.ConfigService;
import com.alibaba.nacos.api.exception.NacosException;
import com.alibaba.nacos.api.naming.NamingService;
import io.lodestar.kv.testing.Await;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The unmodified client against a server started with {@code --tls-cert-file} and {@code
 * --tls-key-file}: with its own TLS settings ({@code nacos.remote.client.rpc.tls.*}), trusting the
 * server's certificate, it publishes and reads configs and registers and lists instances over gRPC
 * with TLS; trusting another certificate, it gets nothing through.
 */
@Timeout(value = 240, unit = TimeUnit.SECONDS)
class GrpcTlsIT {
    static {
        NacosClientHome.init(); // before any nacos-client class loads
    }

    @RegisterExtension
    final LodestarCluster cluster = new LodestarCluster();

    @RegisterExtension
    final OfficialClients clients = new OfficialClients();

    @TempDir
    Path dir;

    /** The client's TLS settings, trusting only the certificates in {@code trusted}. */
    private static Properties tlsTrusting(TestCertificate trusted) {
        Properties tls = new Properties();
        tls.put("nacos.remote.client.rpc.tls.enable", "true");
        tls.put("nacos.remote.client.rpc.tls.trustAll", "false"); // the client trusts any certificate unless told
        // a resource location: a bare path would be looked up on the class path
        tls.put("nacos.remote.client.rpc.tls.trustCollectionChainPath", "file:" + trusted.cert());
        return tls;
    }

    private ServerProcess startTls(TestCertificate cert) throws Exception {
        ServerProcess server = cluster.standalone(
                        "tls",
                        "--tls-cert-file",
                        cert.cert().toString(),
                        "--tls-key-file",
                        cert.key().toString())
                .start();
        HttpClient https = HttpClient.newBuilder().sslContext(cert.trustingIt()).build();
        HttpRequest readiness = HttpRequest.newBuilder(
                        URI.create("https://" + server.httpAddress() + "/nacos/v1/console/health/readiness"))
                .timeout(Duration.ofSeconds(5))
                .build();
        server.awaitReady(() ->
                https.send(readiness, HttpResponse.BodyHandlers.ofString()).statusCode() == 200);
        return server;
    }

    @Test
    void aClientTrustingTheCertificatePublishesReadsRegistersAndLists() throws Exception {
        TestCertificate cert = TestCertificate.create(dir, "node");
        ServerProcess server = startTls(cert);

        ConfigService config = clients.configWith(server.httpAddress(), tlsTrusting(cert));
        assertTrue(config.publishConfig("tls-app.yaml", "DEFAULT_GROUP", "port: 8443"));
        assertEquals("port: 8443", config.getConfig("tls-app.yaml", "DEFAULT_GROUP", 5_000));

        NamingService naming = clients.namingWith(server.httpAddress(), tlsTrusting(cert));
        naming.registerInstance("tls-svc", "127.0.0.71", 7100);
        Await.until(
                Duration.ofSeconds(10),
                "the instance listed",
                () -> naming.getAllInstances("tls-svc").size() == 1);
        assertEquals(7100, naming.getAllInstances("tls-svc").get(0).getPort());
    }

    @Test
    void aClientTrustingAnotherCertificateGetsNothingThrough() throws Exception {
        TestCertificate cert = TestCertificate.create(dir, "node");
        TestCertificate other = TestCertificate.create(dir, "other");
        ServerProcess server = startTls(cert);
        ConfigService stranger = clients.configWith(server.httpAddress(), tlsTrusting(other));
        boolean published;
        try {
            published = stranger.publishConfig("tls-app.yaml", "DEFAULT_GROUP", "port: 1");
        } catch (NacosException e) {
            published = false;
        }
        assertFalse(published, "a client that cannot verify the server sends nothing");
        ConfigService trusting = clients.configWith(server.httpAddress(), tlsTrusting(cert));
        assertEquals(null, trusting.getConfig("tls-app.yaml", "DEFAULT_GROUP", 5_000));
    }
}
