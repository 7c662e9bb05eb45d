package io.lodestar.it;

import static io.lodestar.it.Http.params;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Base64;
import java.util.Random;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.zip.ZipEntry;
import java.util.zip.ZipInputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A namespace holding more config content than the server's whole heap, and a config with more
 * history than the heap: the namespace is listed with its count, searched, exported and the
 * history paged, every answer whole, and the server still serves afterwards. A server that read the
 * namespace, or the history, into memory to answer any of them would fail with OutOfMemoryError.
 */
@Timeout(value = 10, unit = TimeUnit.MINUTES)
class LargeNamespaceIT {
    private static final int HEAP_MIB = 128;
    private static final int CONFIG_MIB = 6;
    private static final int CONFIGS = 24; // 144 MiB of content
    private static final int VERSIONS = 24; // and 144 MiB of history of one config
    private static final String NS = "big";

    @RegisterExtension
    final LodestarCluster cluster = new LodestarCluster();

    private static String content(Random random) {
        byte[] raw = new byte[CONFIG_MIB * 1024 * 1024 / 4 * 3]; // base64: 4 characters per 3 bytes
        random.nextBytes(raw);
        return Base64.getEncoder().encodeToString(raw);
    }

    private static void publish(ServerProcess p, String dataId, String content) throws Exception {
        Http.Response r = Http.postForm(
                p.httpAddress(),
                "/nacos/v1/cs/configs",
                params("dataId", dataId, "group", "G", "tenant", NS, "content", content, "config_tags", "large"),
                Duration.ofSeconds(60));
        assertEquals(200, r.status(), r.body());
    }

    @Test
    void aNamespaceAndAHistoryLargerThanTheHeapAreListedSearchedExportedAndPaged() throws Exception {
        ServerProcess p = cluster.standalone("large").withJvmArgs("-Xmx" + HEAP_MIB + "m");
        cluster.start(p);
        assertEquals(
                200,
                Http.postForm(
                                p.httpAddress(),
                                "/nacos/v1/console/namespaces",
                                params("customNamespaceId", NS, "namespaceName", NS))
                        .status());
        Random random = new Random(7);
        for (int i = 0; i < CONFIGS; i++) {
            publish(p, String.format("large-%02d", i), content(random));
        }
        for (int v = 0; v < VERSIONS; v++) {
            publish(p, "large-00", content(random));
        }

        JsonNode namespaces = Http.json(p.httpAddress(), "/nacos/v1/console/namespaces");
        int count = -1;
        for (JsonNode ns : namespaces.path("data")) {
            if (ns.path("namespace").asText().equals(NS)) {
                count = ns.path("configCount").asInt();
            }
        }
        assertEquals(CONFIGS, count, namespaces.toString());

        Http.Response search = Http.get(
                p.httpAddress(),
                "/nacos/v1/cs/configs?"
                        + Http.query(params(
                                "search",
                                "blur",
                                "dataId",
                                "large-*",
                                "group",
                                "",
                                "tenant",
                                NS,
                                "config_tags",
                                "large",
                                "pageNo",
                                "3",
                                "pageSize",
                                "1")),
                Duration.ofSeconds(60));
        assertEquals(200, search.status(), search.body());
        JsonNode page = Http.JSON.readTree(search.body());
        assertEquals(CONFIGS, page.path("totalCount").asInt(), search.body().substring(0, 200));
        assertEquals("large-02", page.path("pageItems").path(0).path("dataId").asText());

        HttpResponse<InputStream> export = HttpClient.newHttpClient()
                .send(
                        HttpRequest.newBuilder(URI.create("http://" + p.httpAddress() + "/nacos/v1/cs/configs?"
                                        + Http.query(params("exportV2", "true", "tenant", NS))))
                                .timeout(Duration.ofMinutes(2))
                                .build(),
                        HttpResponse.BodyHandlers.ofInputStream());
        assertEquals(200, export.statusCode());
        TreeSet<String> entries = new TreeSet<>();
        try (ZipInputStream zip = new ZipInputStream(export.body())) {
            for (ZipEntry e; (e = zip.getNextEntry()) != null; ) {
                long size = zip.transferTo(java.io.OutputStream.nullOutputStream());
                if (!e.getName().startsWith(".")) {
                    assertEquals(CONFIG_MIB * 1024L * 1024, size, e.getName());
                }
                entries.add(e.getName());
            }
        }
        assertEquals(CONFIGS + 1, entries.size(), "every config and the metadata: " + entries);

        Http.Response history = Http.get(
                p.httpAddress(),
                "/nacos/v1/cs/history?"
                        + Http.query(params(
                                "search",
                                "accurate",
                                "dataId",
                                "large-00",
                                "group",
                                "G",
                                "tenant",
                                NS,
                                "pageNo",
                                "2",
                                "pageSize",
                                "1")),
                Duration.ofSeconds(60));
        assertEquals(200, history.status(), history.body());
        assertEquals(
                VERSIONS + 1,
                Http.JSON.readTree(history.body()).path("totalCount").asInt());

        assertTrue(p.alive(), "the server is still up");
        assertEquals(
                200, StandaloneServerIT.publish(p, "small", "still serving").status());
    }
}
