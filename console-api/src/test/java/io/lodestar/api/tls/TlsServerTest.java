package io.lodestar.api.tls;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.grpc.netty.GrpcSslContexts;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.lodestar.api.cli.LodestarCommand;
import io.lodestar.api.grpc.RawGrpcClient;
import io.lodestar.api.server.LodestarServer;
import io.lodestar.api.server.TestSettings;
import io.lodestar.kv.testing.Await;
import io.lodestar.kv.testing.FreePorts;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.WebSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLHandshakeException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/**
 * A node started with a certificate serves TLS only: HTTPS on the HTTP port (the push channel's
 * WebSocket included) and TLS on the gRPC port, to clients that trust the certificate; plain HTTP,
 * plaintext gRPC and clients that do not trust it get nothing.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TlsServerTest {
    @TempDir
    static Path dir;

    TestCertificates.Pem pem;
    LodestarServer server;
    int httpPort;
    int grpcPort;
    HttpClient https;

    @BeforeAll
    void start() throws Exception {
        pem = TestCertificates.write(dir, "node", TestCertificates.KeyForm.RSA_PKCS8);
        ServerTls tls = ServerTls.of(PemFiles.certificates(pem.cert()), PemFiles.privateKey(pem.key()));
        httpPort = FreePorts.next();
        grpcPort = FreePorts.next();
        server = LodestarServer.start(
                TestSettings.withTls(TestSettings.standalone(dir.resolve("data"), httpPort, grpcPort), tls));
        https = HttpClient.newBuilder()
                .sslContext(ClientTrust.trusting(pem.cert()))
                .connectTimeout(Duration.ofSeconds(5))
                .build();
        Await.until(
                "ready",
                () -> get(https, "https", "/nacos/v1/console/health/readiness").statusCode() == 200);
    }

    @AfterAll
    void stop() {
        server.close();
    }

    private HttpResponse<String> get(HttpClient client, String scheme, String path) throws Exception {
        return client.send(
                HttpRequest.newBuilder(URI.create(scheme + "://127.0.0.1:" + httpPort + path))
                        .timeout(Duration.ofSeconds(5))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private HttpResponse<String> publish(String dataId, String content) throws Exception {
        return https.send(
                HttpRequest.newBuilder(URI.create("https://127.0.0.1:" + httpPort + "/nacos/v1/cs/configs"))
                        .header("Content-Type", "application/x-www-form-urlencoded")
                        .POST(HttpRequest.BodyPublishers.ofString(
                                "dataId=" + dataId + "&group=DEFAULT_GROUP&content=" + content))
                        .timeout(Duration.ofSeconds(5))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void theOpenApiAnswersOverHttps() throws Exception {
        HttpResponse<String> published = publish("over-tls", "secret");
        assertEquals(200, published.statusCode(), published.body());
        HttpResponse<String> read = get(https, "https", "/nacos/v1/cs/configs?dataId=over-tls&group=DEFAULT_GROUP");
        assertEquals(200, read.statusCode(), read.body());
        assertEquals("secret", read.body());
    }

    @Test
    void theClusterCommandTalksHttpsTrustingTheGivenCertificate() {
        String server = "127.0.0.1:" + httpPort;
        assertEquals(
                0,
                LodestarCommand.commandLine()
                        .execute(
                                "cluster",
                                "status",
                                "--server",
                                server,
                                "--tls-ca-file",
                                pem.cert().toString()));
        assertEquals(
                0,
                LodestarCommand.commandLine()
                        .execute(
                                "cluster",
                                "status",
                                "--server",
                                "https://" + server,
                                "--tls-ca-file",
                                pem.cert().toString()));
        assertEquals(1, LodestarCommand.commandLine().execute("cluster", "status", "--server", server), "plain HTTP");
        assertEquals(
                1,
                LodestarCommand.commandLine().execute("cluster", "status", "--server", "https://" + server),
                "the JVM does not trust the certificate");
        assertEquals(
                2,
                LodestarCommand.commandLine()
                        .execute(
                                "cluster",
                                "status",
                                "--server",
                                server,
                                "--tls-ca-file",
                                pem.key().toString()),
                "no certificate in the file");
    }

    @Test
    void theOperatorVerbsTalkHttpsTrustingTheGivenCertificate() throws Exception {
        String server = "127.0.0.1:" + httpPort;
        assertEquals(
                0,
                LodestarCommand.commandLine()
                        .execute(
                                "config",
                                "publish",
                                "--server",
                                server,
                                "--tls-ca-file",
                                pem.cert().toString(),
                                "--data-id",
                                "from-the-cli",
                                "--content",
                                "over tls"));
        HttpResponse<String> read = get(https, "https", "/nacos/v1/cs/configs?dataId=from-the-cli&group=DEFAULT_GROUP");
        assertEquals("over tls", read.body());
        assertEquals(
                1,
                LodestarCommand.commandLine()
                        .execute("config", "get", "--server", "https://" + server, "--data-id", "from-the-cli"),
                "the JVM does not trust the certificate");
    }

    @Test
    void plainHttpToTheHttpsPortGetsNoAnswer() {
        HttpClient plain =
                HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
        assertThrows(IOException.class, () -> get(plain, "http", "/nacos/v1/console/health/liveness"));
    }

    @Test
    void aClientThatDoesNotTrustTheCertificateIsRefused() {
        HttpClient defaults =
                HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
        assertThrows(SSLHandshakeException.class, () -> get(defaults, "https", "/nacos/v1/console/health/liveness"));
    }

    @Test
    void onlyTls12AndNewerAreOffered() throws Exception {
        for (String old : new String[] {"TLSv1", "TLSv1.1"}) {
            javax.net.ssl.SSLParameters params = new javax.net.ssl.SSLParameters();
            params.setProtocols(new String[] {old});
            HttpClient legacy = HttpClient.newBuilder()
                    .sslContext(ClientTrust.trusting(pem.cert()))
                    .sslParameters(params)
                    .connectTimeout(Duration.ofSeconds(5))
                    .build();
            assertThrows(IOException.class, () -> get(legacy, "https", "/nacos/v1/console/health/liveness"), old);
        }
    }

    @Test
    void thePushChannelRunsOverWss() throws Exception {
        LinkedBlockingQueue<String> messages = new LinkedBlockingQueue<>();
        WebSocket ws = https.newWebSocketBuilder()
                .buildAsync(URI.create("wss://127.0.0.1:" + httpPort + "/lodestar/v1/push"), new WebSocket.Listener() {
                    @Override
                    public CompletionStage<?> onText(WebSocket socket, CharSequence data, boolean last) {
                        messages.add(data.toString());
                        socket.request(1);
                        return null;
                    }
                })
                .get(10, TimeUnit.SECONDS);
        try {
            ws.sendText(
                            "{\"type\":\"subscribe\",\"keys\":[{\"dataId\":\"pushed\",\"group\":\"DEFAULT_GROUP\","
                                    + "\"tenant\":\"\"}]}",
                            true)
                    .get(5, TimeUnit.SECONDS);
            assertTrue(messages.poll(10, TimeUnit.SECONDS).contains("\"subscribed\""));
            assertEquals(200, publish("pushed", "v1").statusCode());
            String notice = messages.poll(10, TimeUnit.SECONDS);
            assertTrue(notice != null && notice.contains("\"changed\"") && notice.contains("pushed"), notice);
        } finally {
            ws.abort();
        }
    }

    @Test
    void grpcAnswersOverTlsAndRefusesPlaintext() throws Exception {
        try (RawGrpcClient tls = new RawGrpcClient(NettyChannelBuilder.forAddress("127.0.0.1", grpcPort)
                .sslContext(GrpcSslContexts.forClient()
                        .trustManager(pem.cert().toFile())
                        .build()))) {
            RawGrpcClient.Message check =
                    tls.request(RawGrpcClient.payload("ServerCheckRequest", "{\"module\":\"internal\"}", Map.of()));
            assertEquals("ServerCheckResponse", check.type());
        }
        Logger root = (Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
        ListAppender<ILoggingEvent> logged = new ListAppender<>();
        logged.start();
        root.addAppender(logged);
        try (RawGrpcClient plaintext = new RawGrpcClient(grpcPort)) {
            StatusRuntimeException refused = assertThrows(
                    StatusRuntimeException.class,
                    () -> plaintext.request(RawGrpcClient.payload("ServerCheckRequest", "{}", Map.of())));
            assertEquals(Status.Code.UNAVAILABLE, refused.getStatus().getCode(), refused.toString());
            // the server ends the failed handshake's transport on a thread of its own, telling no one
            Thread.sleep(1000);
        } finally {
            root.detachAppender(logged);
        }
        // regression: a transport that never became ready reached the connection registry without
        // attributes, and its NullPointerException was logged for every failed handshake
        assertTrue(
                logged.list.stream().noneMatch(e -> e.getThrowableProxy() != null),
                () -> logged.list.stream()
                        .filter(e -> e.getThrowableProxy() != null)
                        .map(e -> e.getFormattedMessage() + ": "
                                + e.getThrowableProxy().getClassName())
                        .toList()
                        .toString());
    }
}
