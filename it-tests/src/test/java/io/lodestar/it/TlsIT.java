package io.lodestar.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lodestar.kv.testing.Await;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The packaged server with {@code --tls-cert-file} and {@code --tls-key-file}: an HTTPS client that
 * trusts the certificate logs in, publishes and reads a config through the Open API; plain HTTP
 * gets nothing. Key files others may read and a key of another certificate stop the start with a
 * line naming the file, never a stack trace.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class TlsIT {
    @RegisterExtension
    final LodestarCluster cluster = new LodestarCluster();

    @TempDir
    Path dir;

    private static HttpResponse<String> send(HttpClient client, HttpRequest.Builder request) throws Exception {
        return client.send(request.timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
    }

    private static HttpRequest.Builder form(String url, String body) {
        return HttpRequest.newBuilder(URI.create(url))
                .header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString(body));
    }

    @Test
    void anHttpsClientUsesTheOpenApiAndPlainHttpGetsNothing() throws Exception {
        TestCertificate cert = TestCertificate.create(dir, "node");
        ServerProcess server = cluster.standalone(
                        "tls",
                        "--auth",
                        "on",
                        "--tls-cert-file",
                        cert.cert().toString(),
                        "--tls-key-file",
                        cert.key().toString())
                .start();
        HttpClient https = HttpClient.newBuilder()
                .sslContext(cert.trustingIt())
                .connectTimeout(Duration.ofSeconds(5))
                .build();
        String base = "https://" + server.httpAddress() + "/nacos/v1";
        server.awaitReady(() -> send(https, HttpRequest.newBuilder(URI.create(base + "/console/health/readiness")))
                        .statusCode()
                == 200);
        String log = server.logText();
        assertTrue(log.contains("HTTP https://" + server.httpAddress() + "/nacos"), log);
        assertTrue(log.contains("(tls)"), "the gRPC port is named TLS:\n" + log);

        Path passwordFile = server.dataDir.resolve("initial-admin-password");
        String password = Await.result(
                Duration.ofSeconds(30),
                "the admin's password file",
                () -> Files.exists(passwordFile)
                        ? Files.readString(passwordFile).trim()
                        : null);
        HttpResponse<String> login =
                send(https, form(base + "/auth/users/login", "username=nacos&password=" + password));
        assertEquals(200, login.statusCode(), login.body());
        String token = Http.JSON.readTree(login.body()).get("accessToken").asText();

        HttpResponse<String> published = send(
                https,
                form(base + "/cs/configs?accessToken=" + token, "dataId=tls.yaml&group=DEFAULT_GROUP&content=a: 1"));
        assertEquals(200, published.statusCode(), published.body());
        assertEquals("true", published.body());
        HttpResponse<String> read = send(
                https,
                HttpRequest.newBuilder(
                        URI.create(base + "/cs/configs?dataId=tls.yaml&group=DEFAULT_GROUP&accessToken=" + token)));
        assertEquals(200, read.statusCode(), read.body());
        assertEquals("a: 1", read.body());

        assertThrows(IOException.class, () -> Http.get(server.httpAddress(), "/nacos/v1/console/health/liveness"));
    }

    @Test
    void badKeyFilesStopTheStartNamingTheFile() throws Exception {
        TestCertificate cert = TestCertificate.create(dir, "node");
        TestCertificate other = TestCertificate.create(dir, "other");
        Path openKey = Files.copy(other.key(), dir.resolve("open.key"));
        Files.setPosixFilePermissions(openKey, PosixFilePermissions.fromString("rw-r--r--"));
        String data = dir.resolve("d").toString();
        record Case(String why, List<String> args, String mentions) {}
        List<Case> cases = List.of(
                new Case(
                        "a key others may read",
                        List.of("--tls-cert-file", other.cert().toString(), "--tls-key-file", openKey.toString()),
                        "--tls-key-file: " + openKey + " is readable by others (rw-r--r--); chmod 600 it"),
                new Case(
                        "the key of another certificate",
                        List.of(
                                "--tls-cert-file",
                                cert.cert().toString(),
                                "--tls-key-file",
                                other.key().toString()),
                        "--tls-key-file " + other.key() + " does not go with --tls-cert-file " + cert.cert()),
                new Case(
                        "a missing certificate",
                        List.of(
                                "--tls-cert-file",
                                dir.resolve("none.crt").toString(),
                                "--tls-key-file",
                                cert.key().toString()),
                        "--tls-cert-file: cannot read " + dir.resolve("none.crt") + ": no such file"),
                new Case(
                        "a certificate without its key",
                        List.of("--tls-cert-file", cert.cert().toString()),
                        "--tls-cert-file and --tls-key-file go together"));
        for (Case c : cases) {
            String[] args = new String[c.args.size() + 3];
            args[0] = "server";
            args[1] = "--data-dir";
            args[2] = data;
            for (int i = 0; i < c.args.size(); i++) {
                args[i + 3] = c.args.get(i);
            }
            CliIT.Run r = CliIT.run(args);
            assertEquals(2, r.exit(), c.why + ":\n" + r.output());
            assertTrue(r.output().contains(c.mentions), c.why + " should say '" + c.mentions + "':\n" + r.output());
            assertFalse(r.output().contains("\tat "), c.why + ": no stack trace:\n" + r.output());
        }
    }
}
