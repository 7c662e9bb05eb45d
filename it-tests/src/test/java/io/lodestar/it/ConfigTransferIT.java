package io.lodestar.it;

import static io.lodestar.it.Http.params;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.zip.CRC32;
import java.util.zip.Deflater;
import java.util.zip.DeflaterOutputStream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipInputStream;
import java.util.zip.ZipOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Export and import of a namespace as a Nacos zip: round trip, conflict policies, hostile archives. */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class ConfigTransferIT {
    private static final String CONFIGS = "/nacos/v1/cs/configs";
    private static final HttpClient CLIENT =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    private static final int MIB = 1 << 20;

    @RegisterExtension
    final LodestarCluster cluster = new LodestarCluster();

    @Test
    void exportV2ThenImportIntoAnotherNamespaceKeepsContentTypeAppNameAndDesc() throws Exception {
        ServerProcess p = cluster.startStandalone("roundtrip");
        publish(p, "", "DEFAULT_GROUP", "app.yaml", "port: 8080\nname: \"x\"", "yaml", "shop", "the shop's config");
        publish(p, "", "G2", "db.properties", "url=jdbc:x\n中文=是", "properties", null, "desc, with: {yaml} chars #1");
        publish(p, "", "G2", "plain", "just text", null, "app2", null);
        assertEquals(
                200,
                Http.postForm(
                                p.httpAddress(),
                                "/nacos/v1/console/namespaces",
                                params("customNamespaceId", "dev", "namespaceName", "dev", "namespaceDesc", ""))
                        .status());

        byte[] exported = export(p, "exportV2", "");
        Map<String, String> entries = unzip(exported);
        assertEquals(
                Map.of(
                        "DEFAULT_GROUP/app.yaml",
                        "port: 8080\nname: \"x\"",
                        "G2/db.properties",
                        "url=jdbc:x\n中文=是",
                        "G2/plain",
                        "just text"),
                without(entries, ".metadata.yml"));
        assertTrue(entries.get(".metadata.yml").startsWith("metadata:\n"), entries.get(".metadata.yml"));

        JsonNode result = importZip(p, "dev", "ABORT", exported);
        assertEquals(200, result.get("code").asInt(), result.toString());
        assertEquals(3, result.get("data").get("succCount").asInt(), result.toString());
        assertEquals(0, result.get("data").get("skipCount").asInt());

        Http.Response got = get(p, "dev", "DEFAULT_GROUP", "app.yaml");
        assertEquals("port: 8080\nname: \"x\"", got.body());
        assertEquals("yaml", got.headers().firstValue("Config-Type").orElse(null));
        assertEquals(
                "properties",
                get(p, "dev", "G2", "db.properties")
                        .headers()
                        .firstValue("Config-Type")
                        .orElse(null));
        // metadata (appName, desc, type) survives: the namespace exports to the same archive
        assertEquals(entries, unzip(export(p, "exportV2", "dev")));
    }

    @Test
    void v1ExportCarriesAppNamesAndImportsWithTypeFromTheExtension() throws Exception {
        ServerProcess p = cluster.startStandalone("v1");
        publish(p, "", "DEFAULT_GROUP", "a.json", "{}", "json", "appA", null);
        publish(p, "", "DEFAULT_GROUP", "b", "bee", null, null, null);
        byte[] v1 = export(p, "export", "");
        Map<String, String> entries = unzip(v1);
        assertEquals("DEFAULT_GROUP.a~json.app=appA\r\n", entries.get(".meta.yml"));
        assertEquals(
                200,
                Http.postForm(
                                p.httpAddress(),
                                "/nacos/v1/console/namespaces",
                                params("customNamespaceId", "v1ns", "namespaceName", "v1ns", "namespaceDesc", ""))
                        .status());
        JsonNode result = importZip(p, "v1ns", null, v1);
        assertEquals(2, result.get("data").get("succCount").asInt(), result.toString());
        assertEquals(
                "json",
                get(p, "v1ns", "DEFAULT_GROUP", "a.json")
                        .headers()
                        .firstValue("Config-Type")
                        .orElse(null));
        Map<String, String> again = unzip(export(p, "exportV2", "v1ns"));
        assertTrue(again.get(".metadata.yml").contains("appName: \"appA\""), again.get(".metadata.yml"));
    }

    @Test
    void policiesAbortSkipAndOverwrite() throws Exception {
        ServerProcess p = cluster.startStandalone("policies");
        publish(p, "", "DEFAULT_GROUP", "existing", "old", null, null, null);
        byte[] zip = zip(Map.of("DEFAULT_GROUP/existing", "new", "DEFAULT_GROUP/fresh", "fresh"));

        long before = revision(p);
        JsonNode abort = importZip(p, "", "ABORT", zip).get("data");
        assertEquals(0, abort.get("succCount").asInt(), abort.toString());
        assertEquals("existing", abort.get("failData").get(0).get("dataId").asText());
        assertEquals("fresh", abort.get("skipData").get(0).get("dataId").asText());
        assertEquals(before, revision(p), "ABORT writes nothing");
        assertEquals(404, get(p, "", "DEFAULT_GROUP", "fresh").status());

        JsonNode skip = importZip(p, "", "SKIP", zip).get("data");
        assertEquals(1, skip.get("succCount").asInt(), skip.toString());
        assertEquals(1, skip.get("skipCount").asInt());
        assertEquals("existing", skip.get("skipData").get(0).get("dataId").asText());
        assertEquals("old", get(p, "", "DEFAULT_GROUP", "existing").body());
        assertEquals("fresh", get(p, "", "DEFAULT_GROUP", "fresh").body());

        JsonNode overwrite = importZip(p, "public", "OVERWRITE", zip).get("data");
        assertEquals(2, overwrite.get("succCount").asInt(), overwrite.toString());
        assertEquals("new", get(p, "", "DEFAULT_GROUP", "existing").body());
        // each import goes through publish: the overwritten content is in the history
        JsonNode history = Http.json(
                p.httpAddress(),
                "/nacos/v1/cs/history?"
                        + Http.query(params("search", "accurate", "dataId", "existing", "group", "DEFAULT_GROUP")));
        assertEquals(2, history.get("totalCount").asInt());

        assertEquals(400, importRaw(p, "", "MERGE", zip).status());
        assertEquals(400, importRaw(p, "no-such-namespace", "ABORT", zip).status());
    }

    @Test
    void hostileArchivesAreRejectedWithA400NamingTheProblemAndWriteNothing() throws Exception {
        ServerProcess p = cluster.startStandalone("hostile");
        publish(p, "", "DEFAULT_GROUP", "existing", "old", null, null, null);
        Map<String, String> many = new TreeMap<>();
        for (int i = 0; i <= 10_000; i++) {
            many.put("G/c" + i, "x");
        }
        Map<String, byte[]> bomb = new LinkedHashMap<>();
        for (int i = 0; i < 11; i++) {
            bomb.put("G/part" + i, zeros(9 * MIB + MIB / 2));
        }
        Map<String, byte[]> cases = new LinkedHashMap<>();
        cases.put("is empty", new byte[0]);
        cases.put("is not a zip archive", "definitely not a zip".getBytes(StandardCharsets.UTF_8));
        cases.put("path traversal", zip(Map.of("../../etc/cron.d/x", "boom")));
        cases.put("path traversal ('..')", zip(Map.of("DEFAULT_GROUP/..", "boom")));
        cases.put("absolute path", zip(Map.of("/etc/passwd", "boom")));
        cases.put("backslash", zip(Map.of("DEFAULT_GROUP\\..\\x", "boom")));
        cases.put("not named group/dataId", zip(Map.of("DEFAULT_GROUP/a/b", "deep")));
        cases.put("not named group/dataId ", zip(Map.of("toplevel.txt", "flat")));
        cases.put("not a legal group/dataId", zip(Map.of("DEFAULT_GROUP/bad name", "x")));
        cases.put("more than 10000 entries", zip(many));
        cases.put("declares 11534336 bytes", rawZip("G/big", "small".getBytes(StandardCharsets.UTF_8), 11 * MIB));
        cases.put("inflates to more than 10485760 bytes", rawZip("G/liar", zeros(11 * MIB), 10));
        cases.put("inflates to more than 10485760 bytes ", streamedZeros("G/bomb", 200L * MIB));
        cases.put("more than 104857600 bytes in all", zipBytes(bomb));
        cases.put("nested", zipBytes(Map.of("G/inner.zip", zip(Map.of("G/x", "y")))));
        cases.put("not UTF-8", zipBytes(Map.of("G/latin1", new byte[] {'c', 'a', 'f', (byte) 0xE9})));
        cases.put(
                ".metadata.yml is not valid", zip(Map.of("G/x", "y", ".metadata.yml", "metadata:\n  - {dataId: [\n")));
        cases.put(".meta.yml has a line that is not key=value", zip(Map.of("G/x", "y", ".meta.yml", "nonsense\n")));
        cases.put("is empty; a config needs content", zip(Map.of("G/blank", "  ")));

        long before = revision(p);
        for (Map.Entry<String, byte[]> c : cases.entrySet()) {
            Http.Response r = importRaw(p, "", "OVERWRITE", c.getValue());
            assertEquals(400, r.status(), c.getKey() + ": " + r.body());
            assertTrue(
                    r.body().startsWith("caused: file: ")
                            && r.body().contains(c.getKey().strip()),
                    c.getKey() + ": " + r.body());
        }
        assertEquals(before, revision(p), "no hostile archive wrote anything");
        assertEquals("old", get(p, "", "DEFAULT_GROUP", "existing").body());
        // the server is still well after all of that
        assertEquals(
                2,
                importZip(p, "", "OVERWRITE", zip(Map.of("G/ok", "ok", "DEFAULT_GROUP/existing", "new")))
                        .get("data")
                        .get("succCount")
                        .asInt());
    }

    // --- helpers -------------------------------------------------------------------------------

    private static void publish(
            ServerProcess p,
            String tenant,
            String group,
            String dataId,
            String content,
            String type,
            String appName,
            String desc)
            throws IOException {
        Map<String, String> form = params("tenant", tenant, "group", group, "dataId", dataId, "content", content);
        if (type != null) {
            form.put("type", type);
        }
        if (appName != null) {
            form.put("appName", appName);
        }
        if (desc != null) {
            form.put("desc", desc);
        }
        Http.Response r = Http.postForm(p.httpAddress(), CONFIGS, form);
        assertEquals(200, r.status(), r.body());
    }

    private static Http.Response get(ServerProcess p, String tenant, String group, String dataId) throws IOException {
        return Http.get(
                p.httpAddress(),
                CONFIGS + "?" + Http.query(params("tenant", tenant, "group", group, "dataId", dataId)));
    }

    private static long revision(ServerProcess p) throws IOException {
        return Http.json(p.httpAddress(), "/lodestar/v1/cluster")
                .get("revision")
                .asLong();
    }

    private static byte[] export(ServerProcess p, String flag, String tenant) throws Exception {
        HttpResponse<byte[]> r = CLIENT.send(
                HttpRequest.newBuilder(URI.create("http://" + p.httpAddress() + CONFIGS + "?"
                                + Http.query(params(flag, "true", "tenant", tenant))))
                        .timeout(Duration.ofSeconds(30))
                        .build(),
                HttpResponse.BodyHandlers.ofByteArray());
        assertEquals(200, r.statusCode(), new String(r.body(), StandardCharsets.UTF_8));
        assertEquals("application/zip", r.headers().firstValue("Content-Type").orElse(""));
        assertTrue(r.headers()
                .firstValue("Content-Disposition")
                .orElse("")
                .startsWith("attachment;filename=nacos_config_export_"));
        return r.body();
    }

    private static JsonNode importZip(ServerProcess p, String namespace, String policy, byte[] zip) throws Exception {
        Http.Response r = importRaw(p, namespace, policy, zip);
        assertEquals(200, r.status(), r.body());
        return Http.JSON.readTree(r.body());
    }

    /** A multipart/form-data POST written by hand, as a browser sends the console's upload. */
    private static Http.Response importRaw(ServerProcess p, String namespace, String policy, byte[] zip)
            throws Exception {
        String boundary = "----lodestar" + System.nanoTime();
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        body.write(("--" + boundary + "\r\nContent-Disposition: form-data; name=\"file\"; filename=\"import.zip\"\r\n"
                        + "Content-Type: application/zip\r\n\r\n")
                .getBytes(StandardCharsets.UTF_8));
        body.write(zip);
        body.write(("\r\n--" + boundary + "--\r\n").getBytes(StandardCharsets.UTF_8));
        Map<String, String> q = params("import", "true", "namespace", namespace);
        if (policy != null) {
            q.put("policy", policy);
        }
        HttpResponse<String> r = CLIENT.send(
                HttpRequest.newBuilder(URI.create("http://" + p.httpAddress() + CONFIGS + "?" + Http.query(q)))
                        .header("Content-Type", "multipart/form-data; boundary=" + boundary)
                        .timeout(Duration.ofSeconds(60))
                        .POST(HttpRequest.BodyPublishers.ofByteArray(body.toByteArray()))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        return new Http.Response(r.statusCode(), r.body(), r.headers());
    }

    private static Map<String, String> unzip(byte[] zip) throws IOException {
        Map<String, String> out = new TreeMap<>();
        try (ZipInputStream in = new ZipInputStream(new ByteArrayInputStream(zip))) {
            ZipEntry e;
            while ((e = in.getNextEntry()) != null) {
                out.put(e.getName(), new String(in.readAllBytes(), StandardCharsets.UTF_8));
            }
        }
        return out;
    }

    private static Map<String, String> without(Map<String, String> m, String key) {
        Map<String, String> copy = new TreeMap<>(m);
        copy.remove(key);
        return copy;
    }

    private static byte[] zip(Map<String, String> entries) throws IOException {
        Map<String, byte[]> bytes = new LinkedHashMap<>();
        entries.forEach((k, v) -> bytes.put(k, v.getBytes(StandardCharsets.UTF_8)));
        return zipBytes(bytes);
    }

    private static byte[] zipBytes(Map<String, byte[]> entries) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (ZipOutputStream zip = new ZipOutputStream(out)) {
            for (Map.Entry<String, byte[]> e : entries.entrySet()) {
                zip.putNextEntry(new ZipEntry(e.getKey()));
                zip.write(e.getValue());
                zip.closeEntry();
            }
        }
        return out.toByteArray();
    }

    private static byte[] zeros(int n) {
        return new byte[n];
    }

    /** One entry of {@code size} zero bytes, deflated as it is generated (never held inflated). */
    private static byte[] streamedZeros(String name, long size) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (ZipOutputStream zip = new ZipOutputStream(out)) {
            zip.setLevel(Deflater.BEST_COMPRESSION);
            zip.putNextEntry(new ZipEntry(name));
            byte[] chunk = new byte[MIB];
            for (long done = 0; done < size; done += chunk.length) {
                zip.write(chunk);
            }
            zip.closeEntry();
        }
        return out.toByteArray();
    }

    /**
     * A one-entry zip written byte by byte, whose local and central headers declare
     * {@code declaredSize} as the inflated size whatever {@code data} really is.
     */
    private static byte[] rawZip(String name, byte[] data, long declaredSize) throws IOException {
        byte[] nameBytes = name.getBytes(StandardCharsets.UTF_8);
        ByteArrayOutputStream deflated = new ByteArrayOutputStream();
        try (DeflaterOutputStream d =
                new DeflaterOutputStream(deflated, new Deflater(Deflater.BEST_COMPRESSION, true))) {
            d.write(data);
        }
        byte[] compressed = deflated.toByteArray();
        CRC32 crc = new CRC32();
        crc.update(data);
        ByteBuffer b = ByteBuffer.allocate(30 + nameBytes.length + compressed.length + 46 + nameBytes.length + 22)
                .order(ByteOrder.LITTLE_ENDIAN);
        b.putInt(0x04034b50)
                .putShort((short) 20)
                .putShort((short) 0)
                .putShort((short) 8)
                .putShort((short) 0)
                .putShort((short) 0x21)
                .putInt((int) crc.getValue())
                .putInt(compressed.length)
                .putInt((int) declaredSize)
                .putShort((short) nameBytes.length)
                .putShort((short) 0)
                .put(nameBytes)
                .put(compressed);
        int central = b.position();
        b.putInt(0x02014b50)
                .putShort((short) 20)
                .putShort((short) 20)
                .putShort((short) 0)
                .putShort((short) 8)
                .putShort((short) 0)
                .putShort((short) 0x21)
                .putInt((int) crc.getValue())
                .putInt(compressed.length)
                .putInt((int) declaredSize)
                .putShort((short) nameBytes.length)
                .putShort((short) 0)
                .putShort((short) 0)
                .putShort((short) 0)
                .putShort((short) 0)
                .putInt(0)
                .putInt(0)
                .put(nameBytes);
        int centralSize = b.position() - central;
        b.putInt(0x06054b50)
                .putShort((short) 0)
                .putShort((short) 0)
                .putShort((short) 1)
                .putShort((short) 1)
                .putInt(centralSize)
                .putInt(central)
                .putShort((short) 0);
        return b.array();
    }
}
