package io.lodestar.api.cli;

import io.lodestar.api.auth.BrowserOrigins;
import io.lodestar.api.balance.BalanceSettings;
import io.lodestar.api.server.LodestarServer;
import io.lodestar.api.server.ServerSettings;
import io.lodestar.kv.KvStoreConfig;
import io.lodestar.naming.dns.DnsNamespaces;
import io.lodestar.naming.health.ProbeScope;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.stream.Stream;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * Starts a throwaway standalone node and drives the commonest requests through its HTTP API. It
 * checks an install (JVM, native RocksDB library, ports) without touching a real data dir, and
 * {@code bin/lodestar} runs it once per build to record the classes a server loads into a
 * class-data-sharing archive that the next starts map instead of loading those classes.
 */
@Command(
        name = "self-test",
        mixinStandardHelpOptions = true,
        versionProvider = VersionProvider.class,
        description = "Start a throwaway standalone node on free loopback ports in a temporary directory, "
                + "publish and read a config, register, beat and list an instance through its HTTP API, "
                + "then stop it and delete the directory. Exit 0 when every check passes, 1 otherwise.")
public final class SelfTestCommand implements Callable<Integer> {
    private static final Duration READY_WITHIN = Duration.ofSeconds(60);

    private HttpClient http;
    private String base;

    @Override
    public Integer call() throws Exception {
        Path dir = Files.createTempDirectory("lodestar-self-test");
        SelfTestPorts ports = new SelfTestPorts();
        int httpPort = ports.next();
        ServerSettings settings = new ServerSettings(
                "127.0.0.1",
                httpPort,
                0,
                io.lodestar.api.limits.Limits.defaults(),
                ports.next(),
                dir,
                List.of(),
                null,
                3600,
                KvStoreConfig.DEFAULT_SNAPSHOT_ENTRIES,
                KvStoreConfig.DEFAULT_SNAPSHOT_BYTES,
                0,
                0,
                DnsNamespaces.parse(DnsNamespaces.DEFAULT),
                ProbeScope.parse("127.0.0.0/8"), // a self-test dials nothing beyond this machine
                false, // its own throw-away node, on loopback
                BrowserOrigins.allowing(List.of()),
                null,
                null, // plain HTTP: the node answers this process only
                null,
                BalanceSettings.DEFAULT,
                false);
        http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
        base = "http://127.0.0.1:" + httpPort + "/nacos/v1";
        try (LodestarServer server = LodestarServer.start(settings)) {
            awaitReady();
            check(
                    "publish a config",
                    send("POST", "/cs/configs", "dataId=self-test&group=DEFAULT_GROUP&content=hello"),
                    "true");
            check("read it back", send("GET", "/cs/configs?dataId=self-test&group=DEFAULT_GROUP", null), "hello");
            String instance = "serviceName=self-test&ip=127.0.0.1&port=9&ephemeral=true";
            check("register an instance", send("POST", "/ns/instance", instance), "ok");
            check(
                    "beat it",
                    send(
                            "PUT",
                            "/ns/instance/beat?" + instance + "&beat="
                                    + URLEncoder.encode(
                                            "{\"ip\":\"127.0.0.1\",\"port\":9,\"serviceName\":\"DEFAULT_GROUP@@self-test\",\"cluster\":\"DEFAULT\"}",
                                            StandardCharsets.UTF_8),
                            null),
                    "10200");
            check("list it", send("GET", "/ns/instance/list?serviceName=self-test", null), "\"ip\":\"127.0.0.1\"");
            check(
                    "delete the config",
                    send("DELETE", "/cs/configs?dataId=self-test&group=DEFAULT_GROUP", null),
                    "true");
            System.out.println("self-test passed");
            return CommandLine.ExitCode.OK;
        } catch (SelfTestFailure e) {
            System.out.println("self-test FAILED: " + e.getMessage());
            return CommandLine.ExitCode.SOFTWARE;
        } finally {
            deleteTree(dir);
        }
    }

    private void awaitReady() throws InterruptedException {
        long deadline = System.nanoTime() + READY_WITHIN.toNanos();
        String last = "no answer";
        while (System.nanoTime() < deadline) {
            try {
                HttpResponse<String> r = send("GET", "/console/health/readiness", null);
                if (r.statusCode() == 200) {
                    System.out.println("self-test: node ready");
                    return;
                }
                last = r.statusCode() + " " + r.body();
            } catch (IOException e) {
                last = e.toString();
            }
            Thread.sleep(50); // polling period of a deadline-bounded wait
        }
        throw new SelfTestFailure("the node was not ready within " + READY_WITHIN.toSeconds() + " s: " + last);
    }

    private HttpResponse<String> send(String method, String path, String form)
            throws IOException, InterruptedException {
        HttpRequest.Builder request =
                HttpRequest.newBuilder(URI.create(base + path)).timeout(Duration.ofSeconds(10));
        if (form != null) {
            request.header("Content-Type", "application/x-www-form-urlencoded");
        }
        request.method(
                method, form == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(form));
        return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    private static void check(String what, HttpResponse<String> answer, String expected) {
        if (answer.statusCode() != 200 || !answer.body().contains(expected)) {
            throw new SelfTestFailure(
                    what + ": expected 200 with " + expected + ", got " + answer.statusCode() + " " + answer.body());
        }
        System.out.println("self-test: " + what + ": ok");
    }

    private static void deleteTree(Path dir) throws IOException {
        try (Stream<Path> paths = Files.walk(dir)) {
            paths.sorted(Comparator.reverseOrder()).forEach(p -> {
                try {
                    Files.delete(p);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
        }
    }

    private static final class SelfTestFailure extends RuntimeException {
        SelfTestFailure(String message) {
            super(message);
        }
    }
}
