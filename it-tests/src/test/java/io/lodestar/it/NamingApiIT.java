package io.lodestar.it;

import static io.lodestar.it.Http.params;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.lodestar.kv.testing.Await;
import java.io.ByteArrayInputStream;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.zip.GZIPInputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The naming API over raw HTTP (and UDP): what the official client cannot show. */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class NamingApiIT {
    private static final String NS = "/nacos/v1/ns";

    @RegisterExtension
    final LodestarCluster cluster = new LodestarCluster();

    private ServerProcess server() {
        ServerProcess p = cluster.startStandalone("naming-api");
        return p;
    }

    private static void ok(ServerProcess p, String method, String path, Map<String, String> form) throws Exception {
        Http.Response r = Http.send(p.httpAddress(), method, path, form);
        assertEquals(200, r.status(), method + " " + path + " " + form + ": " + r.body());
        assertEquals("ok", r.body(), method + " " + path);
    }

    private static JsonNode get(ServerProcess p, String path, Map<String, String> query) throws Exception {
        return Http.json(p.httpAddress(), path + "?" + Http.query(query));
    }

    private static JsonNode host(JsonNode list, String ip) {
        for (JsonNode h : list.get("hosts")) {
            if (h.get("ip").asText().equals(ip)) {
                return h;
            }
        }
        return null;
    }

    @Test
    void theInstanceListHasEveryFieldTheNacosClientReads() throws Exception {
        ServerProcess p = server();
        ok(
                p,
                "POST",
                NS + "/instance",
                params(
                        "serviceName",
                        "G1@@orders",
                        "groupName",
                        "G1",
                        "ip",
                        "127.0.0.1",
                        "port",
                        "8080",
                        "weight",
                        "2",
                        "clusterName",
                        "c1",
                        "metadata",
                        "{\"zone\":\"a\",\"preserved.heart.beat.interval\":\"3000\"}"));
        ok(
                p,
                "POST",
                NS + "/instance",
                params(
                        "serviceName",
                        "orders",
                        "groupName",
                        "G1",
                        "ip",
                        "127.0.0.2",
                        "port",
                        "8080",
                        "clusterName",
                        "c2",
                        "metadata",
                        "zone=b,tier=web"));
        ok(
                p,
                "POST",
                NS + "/instance",
                params(
                        "serviceName",
                        "G1@@orders",
                        "ip",
                        "127.0.0.3",
                        "port",
                        "8080",
                        "clusterName",
                        "c1",
                        "enable",
                        "false"));

        JsonNode list = get(p, NS + "/instance/list", params("serviceName", "G1@@orders", "clusters", "c1,c2"));
        assertEquals("G1@@orders", list.get("name").asText(), "the grouped name");
        assertEquals("G1", list.get("groupName").asText());
        assertEquals("c1,c2", list.get("clusters").asText(), "clusters echoed as sent");
        assertEquals(10000, list.get("cacheMillis").asLong());
        assertTrue(list.get("lastRefTime").isIntegralNumber());
        assertTrue(list.get("checksum").isTextual()
                && !list.get("checksum").asText().isEmpty());
        assertFalse(list.get("allIPs").asBoolean());
        assertFalse(list.get("reachProtectionThreshold").asBoolean());
        assertTrue(list.get("valid").asBoolean());
        assertEquals(2, list.get("hosts").size(), "the disabled instance is left out: " + list);

        JsonNode h = host(list, "127.0.0.1");
        assertEquals("127.0.0.1#8080#c1#G1@@orders", h.get("instanceId").asText());
        assertEquals(8080, h.get("port").asInt());
        assertTrue(h.get("weight").isDouble(), "weight is a double: " + h);
        assertEquals(2.0, h.get("weight").asDouble());
        assertTrue(h.get("healthy").asBoolean());
        assertTrue(h.get("enabled").asBoolean());
        assertTrue(h.get("ephemeral").asBoolean());
        assertEquals("c1", h.get("clusterName").asText());
        assertEquals("G1@@orders", h.get("serviceName").asText());
        assertEquals("a", h.get("metadata").get("zone").asText());
        assertEquals(3000, h.get("instanceHeartBeatInterval").asLong(), "from the preserved metadata key");
        assertEquals(15000, h.get("instanceHeartBeatTimeOut").asLong());
        assertEquals(30000, h.get("ipDeleteTimeout").asLong());
        assertEquals("web", host(list, "127.0.0.2").get("metadata").get("tier").asText(), "k=v metadata");

        JsonNode c2 =
                get(p, NS + "/instance/list", params("serviceName", "orders", "groupName", "G1", "clusters", "c2"));
        assertEquals("G1@@orders", c2.get("name").asText());
        assertEquals("c2", c2.get("clusters").asText());
        assertEquals(List.of("127.0.0.2"), ips(c2));
        JsonNode none = get(p, NS + "/instance/list", params("serviceName", "G1@@orders"));
        assertEquals("", none.get("clusters").asText());
        assertEquals(2, none.get("hosts").size());
        JsonNode unknown = get(p, NS + "/instance/list", params("serviceName", "nobody-here"));
        assertEquals("DEFAULT_GROUP@@nobody-here", unknown.get("name").asText());
        assertEquals(0, unknown.get("hosts").size());
    }

    private static List<String> ips(JsonNode list) {
        List<String> out = new ArrayList<>();
        list.get("hosts").forEach(h -> out.add(h.get("ip").asText()));
        out.sort(null);
        return out;
    }

    @Test
    void healthyOnlyDropsUnhealthyInstancesUntilTheProtectThresholdIsReached() throws Exception {
        ServerProcess p = server();
        // persistent instances keep the health they were given (no probe runs on a NONE cluster)
        ok(p, "POST", NS + "/service", params("serviceName", "pay", "protectThreshold", "0"));
        ok(
                p,
                "PUT",
                NS + "/cluster",
                params("serviceName", "pay", "clusterName", "DEFAULT", "healthChecker", "{\"type\":\"NONE\"}"));
        ok(
                p,
                "POST",
                NS + "/instance",
                params("serviceName", "pay", "ip", "127.0.1.1", "port", "1", "ephemeral", "false"));
        ok(
                p,
                "POST",
                NS + "/instance",
                params("serviceName", "pay", "ip", "127.0.1.2", "port", "1", "ephemeral", "false", "healthy", "false"));
        assertEquals(
                List.of("127.0.1.1", "127.0.1.2"), ips(get(p, NS + "/instance/list", params("serviceName", "pay"))));
        assertEquals(
                List.of("127.0.1.1"),
                ips(get(p, NS + "/instance/list", params("serviceName", "pay", "healthyOnly", "true"))));
        ok(p, "PUT", NS + "/service", params("serviceName", "pay", "protectThreshold", "0.6"));
        JsonNode reached = get(p, NS + "/instance/list", params("serviceName", "pay", "healthyOnly", "true"));
        assertTrue(reached.get("reachProtectionThreshold").asBoolean(), reached.toString());
        assertEquals(List.of("127.0.1.1", "127.0.1.2"), ips(reached), "all listed once half are unhealthy");
    }

    /**
     * A list is kept and served again while the service does not change, so each change must show
     * in the very next list: asked for at once after each answer, no waiting.
     */
    @Test
    void everyChangeShowsInTheVeryNextListAndAnUnchangedListIsAnsweredAlike() throws Exception {
        ServerProcess p = server();
        String list = NS + "/instance/list";
        Map<String, String> web = params("serviceName", "web", "ip", "127.0.2.1", "port", "80");
        ok(p, "POST", NS + "/instance", web);
        Map<String, String> all = params("serviceName", "web");
        JsonNode first = get(p, list, all);
        assertEquals(first, get(p, list, all), "nothing changed in between");
        assertEquals(
                "DEFAULT",
                get(p, list, params("serviceName", "web", "clusters", "DEFAULT"))
                        .get("clusters")
                        .asText(),
                "the clusters asked for are echoed even where the same instances were listed for another query");

        ok(p, "POST", NS + "/instance", params("serviceName", "web", "ip", "127.0.2.2", "port", "80"));
        assertEquals(List.of("127.0.2.1", "127.0.2.2"), ips(get(p, list, all)), "a registration");
        ok(p, "PUT", NS + "/instance", with(web, "weight", "7"));
        assertEquals(7.0, host(get(p, list, all), "127.0.2.1").get("weight").asDouble(), "a new weight");
        ok(p, "PUT", NS + "/instance", with(web, "enabled", "false"));
        assertEquals(List.of("127.0.2.2"), ips(get(p, list, all)), "a disabled instance");
        ok(p, "DELETE", NS + "/instance", params("serviceName", "web", "ip", "127.0.2.2", "port", "80"));
        assertEquals(List.of(), ips(get(p, list, all)), "a deregistration");

        Map<String, String> db = params("serviceName", "db", "ip", "127.0.2.3", "port", "5432", "ephemeral", "false");
        ok(p, "POST", NS + "/instance", db);
        ok(
                p,
                "PUT",
                NS + "/cluster",
                params("serviceName", "db", "clusterName", "DEFAULT", "healthChecker", "{\"type\":\"NONE\"}"));
        Map<String, String> healthy = params("serviceName", "db", "healthyOnly", "true");
        assertEquals(List.of("127.0.2.3"), ips(get(p, list, healthy)));
        ok(
                p,
                "PUT",
                NS + "/health/instance",
                with(params("serviceName", "db", "ip", "127.0.2.3", "port", "5432"), "healthy", "false"));
        JsonNode unhealthy = get(p, list, healthy);
        assertTrue(unhealthy.get("reachProtectionThreshold").asBoolean(), "a health set by hand: " + unhealthy);
        ok(
                p,
                "PUT",
                NS + "/health/instance",
                with(params("serviceName", "db", "ip", "127.0.2.3", "port", "5432"), "healthy", "true"));
        assertFalse(get(p, list, healthy).get("reachProtectionThreshold").asBoolean(), "healthy again");
        ok(p, "PUT", NS + "/service", params("serviceName", "db", "protectThreshold", "1"));
        assertTrue(get(p, list, healthy).get("reachProtectionThreshold").asBoolean(), "a new protect threshold");
    }

    @Test
    void updateMergesMetadataPatchReplacesItAndDeregisterIsIdempotent() throws Exception {
        ServerProcess p = server();
        Map<String, String> at = params("serviceName", "cart", "ip", "127.0.2.1", "port", "9000");
        ok(p, "POST", NS + "/instance", with(at, "metadata", "{\"a\":\"1\",\"b\":\"2\"}"));
        ok(p, "PUT", NS + "/instance", with(with(at, "metadata", "{\"b\":\"3\",\"c\":\"4\"}"), "weight", "5"));
        JsonNode d = get(p, NS + "/instance", at);
        assertEquals("DEFAULT_GROUP@@cart", d.get("service").asText());
        assertEquals(Map.of("a", "1", "b", "3", "c", "4"), Http.JSON.convertValue(d.get("metadata"), Map.class));
        assertEquals(5.0, d.get("weight").asDouble());
        assertEquals("DEFAULT", d.get("clusterName").asText());

        ok(p, "PATCH", NS + "/instance", with(with(at, "metadata", "{\"only\":\"this\"}"), "enabled", "false"));
        d = get(p, NS + "/instance", at);
        assertEquals(Map.of("only", "this"), Http.JSON.convertValue(d.get("metadata"), Map.class));
        assertEquals(5.0, d.get("weight").asDouble(), "an unpatched field is kept");
        assertFalse(d.get("enabled").asBoolean());
        assertEquals(
                0,
                get(p, NS + "/instance/list", params("serviceName", "cart"))
                        .get("hosts")
                        .size(),
                "a disabled instance is not listed");

        Http.Response missing = Http.send(
                p.httpAddress(),
                "PUT",
                NS + "/instance",
                params("serviceName", "cart", "ip", "127.0.2.9", "port", "9000"));
        assertEquals(404, missing.status(), "update of an unknown instance: " + missing.body());

        ok(p, "DELETE", NS + "/instance?" + Http.query(at), Map.of());
        ok(p, "DELETE", NS + "/instance?" + Http.query(at), Map.of());
        assertEquals(
                404,
                Http.get(p.httpAddress(), NS + "/instance?" + Http.query(at)).status());
    }

    private static Map<String, String> with(Map<String, String> base, String k, String v) {
        Map<String, String> m = new java.util.LinkedHashMap<>(base);
        m.put(k, v);
        return m;
    }

    @Test
    void aLightBeatForAnUnknownInstanceAnswers20404AndAFullBeatRegistersIt() throws Exception {
        ServerProcess p = server();
        String query = NS + "/instance/beat?"
                + Http.query(params(
                        "serviceName",
                        "DEFAULT_GROUP@@beats",
                        "clusterName",
                        "DEFAULT",
                        "ip",
                        "127.0.3.1",
                        "port",
                        "7000",
                        "namespaceId",
                        "public"));
        Http.Response light = Http.send(p.httpAddress(), "PUT", query, Map.of());
        assertEquals(200, light.status(), light.body());
        JsonNode unknown = Http.JSON.readTree(light.body());
        assertEquals(20404, unknown.get("code").asInt(), light.body());
        assertEquals(5000, unknown.get("clientBeatInterval").asLong(), "the client always reads the interval");

        String beat =
                "{\"cluster\":\"DEFAULT\",\"ip\":\"127.0.3.1\",\"metadata\":{\"preserved.heart.beat.interval\":\"2000\"},"
                        + "\"period\":2000,\"port\":7000,\"scheduled\":false,\"serviceName\":\"DEFAULT_GROUP@@beats\","
                        + "\"stopped\":false,\"weight\":3.0}";
        Http.Response full = Http.send(p.httpAddress(), "PUT", query, params("beat", beat));
        JsonNode taken = Http.JSON.readTree(full.body());
        assertEquals(10200, taken.get("code").asInt(), full.body());
        assertEquals(2000, taken.get("clientBeatInterval").asLong(), "the instance's own interval");
        assertTrue(taken.get("lightBeatEnabled").asBoolean());
        JsonNode h = host(get(p, NS + "/instance/list", params("serviceName", "beats")), "127.0.3.1");
        assertNotNull(h, "registered again from the full beat");
        assertEquals(3.0, h.get("weight").asDouble());

        JsonNode again = Http.JSON.readTree(
                Http.send(p.httpAddress(), "PUT", query, Map.of()).body());
        assertEquals(10200, again.get("code").asInt(), "a light beat of a known instance");
    }

    @Test
    void servicesAreCreatedReadUpdatedListedAndDeletedOnlyWhenEmpty() throws Exception {
        ServerProcess p = server();
        ok(
                p,
                "POST",
                NS + "/service",
                params(
                        "serviceName",
                        "inventory",
                        "groupName",
                        "G2",
                        "protectThreshold",
                        "0.25",
                        "metadata",
                        "{\"owner\":\"team-a\"}",
                        "selector",
                        "{\"type\":\"label\",\"expression\":\"x\"}"));
        Http.Response dup = Http.send(p.httpAddress(), "POST", NS + "/service", params("serviceName", "G2@@inventory"));
        assertEquals(400, dup.status());
        assertTrue(dup.body().contains("already exists"), dup.body());

        JsonNode s = get(p, NS + "/service", params("serviceName", "inventory", "groupName", "G2"));
        assertEquals("inventory", s.get("name").asText(), "the name without its group, as the 1.x client reads it");
        assertEquals("G2", s.get("groupName").asText());
        assertEquals("public", s.get("namespaceId").asText());
        assertEquals(0.25, s.get("protectThreshold").asDouble());
        assertEquals("team-a", s.get("metadata").get("owner").asText());

        ok(
                p,
                "PUT",
                NS + "/service",
                params("serviceName", "G2@@inventory", "protectThreshold", "0.5", "metadata", "owner=team-b"));
        s = get(p, NS + "/service", params("serviceName", "G2@@inventory"));
        assertEquals(0.5, s.get("protectThreshold").asDouble());
        assertEquals("team-b", s.get("metadata").get("owner").asText());

        ok(p, "POST", NS + "/service", params("serviceName", "G2@@billing"));
        ok(p, "POST", NS + "/instance", params("serviceName", "G2@@accounts", "ip", "127.0.4.1", "port", "1"));
        JsonNode page = get(p, NS + "/service/list", params("pageNo", "1", "pageSize", "2", "groupName", "G2"));
        assertEquals(3, page.get("count").asInt(), page.toString());
        assertEquals(
                List.of("accounts", "billing"),
                Http.JSON.convertValue(page.get("doms"), List.class),
                "sorted, without the group prefix");
        JsonNode second = get(p, NS + "/service/list", params("pageNo", "2", "pageSize", "2", "groupName", "G2"));
        assertEquals(List.of("inventory"), Http.JSON.convertValue(second.get("doms"), List.class));
        assertEquals(
                0,
                get(p, NS + "/service/list", params("pageNo", "1", "pageSize", "10"))
                        .get("count")
                        .asInt(),
                "DEFAULT_GROUP has none");

        Http.Response notEmpty = Http.delete(p.httpAddress(), NS + "/service?serviceName=G2@@accounts");
        assertEquals(400, notEmpty.status(), notEmpty.body());
        assertTrue(notEmpty.body().contains("instances"), notEmpty.body());
        ok(p, "DELETE", NS + "/instance?serviceName=G2@@accounts&ip=127.0.4.1&port=1", Map.of());
        ok(p, "DELETE", NS + "/service?serviceName=G2@@accounts", Map.of());
        ok(p, "DELETE", NS + "/service?serviceName=inventory&groupName=G2", Map.of());
        Http.Response gone = Http.delete(p.httpAddress(), NS + "/service?serviceName=inventory&groupName=G2");
        assertEquals(400, gone.status());
        assertEquals("caused: service G2@@inventory not found!", gone.body());
        assertEquals(
                1,
                get(p, NS + "/service/list", params("pageNo", "1", "pageSize", "10", "groupName", "G2"))
                        .get("count")
                        .asInt());
    }

    @Test
    void healthIsSetByHandOnlyWhereNoProbeOwnsIt() throws Exception {
        ServerProcess p = server();
        Map<String, String> at = params("serviceName", "db", "ip", "127.0.5.1", "port", "5432", "clusterName", "main");
        ok(p, "POST", NS + "/instance", with(at, "ephemeral", "false"));
        Http.Response probed = Http.send(p.httpAddress(), "PUT", NS + "/health/instance", with(at, "healthy", "false"));
        assertEquals(400, probed.status(), "the default TCP probe owns it: " + probed.body());
        assertTrue(probed.body().contains("TCP"), probed.body());

        ok(
                p,
                "PUT",
                NS + "/cluster",
                params("serviceName", "db", "clusterName", "main", "healthChecker", "{\"type\":\"NONE\"}"));
        ok(p, "PUT", NS + "/health/instance", with(at, "healthy", "false"));
        assertFalse(get(p, NS + "/instance", at).get("healthy").asBoolean());
        JsonNode service = get(p, NS + "/service", params("serviceName", "db"));
        assertEquals(
                "NONE",
                service.get("clusters").get(0).get("healthChecker").get("type").asText(),
                service.toString());
        ok(p, "PUT", NS + "/health/instance", with(at, "healthy", "true"));
        assertTrue(get(p, NS + "/instance", at).get("healthy").asBoolean());

        Map<String, String> eph = params("serviceName", "cache", "ip", "127.0.5.2", "port", "6379");
        ok(p, "POST", NS + "/instance", eph);
        Http.Response beats = Http.send(p.httpAddress(), "PUT", NS + "/health/instance", with(eph, "healthy", "false"));
        assertEquals(400, beats.status(), "heartbeats own an ephemeral instance's health: " + beats.body());
    }

    @Test
    void operatorEndpointsDescribeTheServerAndRefuseSwitchChanges() throws Exception {
        ServerProcess p = server();
        ok(p, "POST", NS + "/instance", params("serviceName", "m1", "ip", "127.0.6.1", "port", "1"));
        ok(
                p,
                "POST",
                NS + "/instance",
                params("serviceName", "m2", "ip", "127.0.6.1", "port", "1", "ephemeral", "false"));
        JsonNode metrics = Http.json(p.httpAddress(), NS + "/operator/metrics");
        assertEquals("UP", metrics.get("status").asText());
        assertEquals(2, metrics.get("serviceCount").asInt(), metrics.toString());
        assertEquals(2, metrics.get("instanceCount").asInt());
        assertEquals(1, metrics.get("persistentInstanceCount").asInt());

        JsonNode servers = Http.json(p.httpAddress(), NS + "/operator/servers").get("servers");
        assertEquals(1, servers.size(), servers.toString());
        assertEquals(p.host, servers.get(0).get("ip").asText());
        assertEquals(p.httpPort, servers.get(0).get("port").asInt());
        assertEquals("UP", servers.get(0).get("state").asText());

        JsonNode switches = Http.json(p.httpAddress(), NS + "/operator/switches");
        assertEquals(5000, switches.get("clientBeatInterval").asInt());
        assertTrue(switches.get("pushEnabled").asBoolean());
        Http.Response put = Http.send(
                p.httpAddress(),
                "PUT",
                NS + "/operator/switches",
                params("entry", "clientBeatInterval", "value", "1000"));
        assertEquals(400, put.status());
        assertTrue(put.body().contains("read-only"), put.body());
    }

    @Test
    void aUdpPushGoesToTheRequestsAddressWithTheSubscribersClustersAndIsAcknowledged() throws Exception {
        ServerProcess p = server();
        ok(
                p,
                "POST",
                NS + "/instance",
                params("serviceName", "G3@@push", "ip", "127.0.7.1", "port", "1", "clusterName", "a"));
        try (DatagramSocket client = new DatagramSocket(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))) {
            // the reported clientIP names somebody else: the push must still come to this socket, and only here
            JsonNode first = get(
                    p,
                    NS + "/instance/list",
                    params(
                            "serviceName",
                            "G3@@push",
                            "clusters",
                            "a",
                            "udpPort",
                            String.valueOf(client.getLocalPort()),
                            "clientIP",
                            "203.0.113.7"));
            assertEquals(1, first.get("hosts").size());
            long before = System.nanoTime();
            ok(
                    p,
                    "POST",
                    NS + "/instance",
                    params("serviceName", "G3@@push", "ip", "127.0.7.2", "port", "1", "clusterName", "a"));
            ok(
                    p,
                    "POST",
                    NS + "/instance",
                    params("serviceName", "G3@@push", "ip", "127.0.7.3", "port", "1", "clusterName", "b"));

            JsonNode data = null;
            JsonNode packet = null;
            InetSocketAddress from = null;
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            // pushes come per change (maybe coalesced); wait for the one showing both a-instances
            while (data == null || data.get("hosts").size() != 2) {
                long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
                assertTrue(left > 0, "no push with both instances of cluster a within 5 s; last: " + data);
                client.setSoTimeout((int) left);
                DatagramPacket d = new DatagramPacket(new byte[1 << 16], 1 << 16);
                try {
                    client.receive(d);
                } catch (SocketTimeoutException e) {
                    continue;
                }
                packet = decode(d);
                data = Http.JSON.readTree(packet.get("data").asText());
                from = (InetSocketAddress) d.getSocketAddress();
                ack(client, packet, from);
            }
            assertTrue(System.nanoTime() - before < TimeUnit.SECONDS.toNanos(5));
            assertEquals("dom", packet.get("type").asText());
            assertEquals("G3@@push", data.get("name").asText());
            assertEquals("a", data.get("clusters").asText(), "the subscriber's own cluster filter");
            assertEquals(List.of("127.0.7.1", "127.0.7.2"), ips(data), "only cluster a");
            // a later push (the cluster-b registration) may have replaced the one acked above before
            // its ack arrived: keep acknowledging what comes
            Await.until(Duration.ofSeconds(5), "an ack counted", () -> {
                client.setSoTimeout(50);
                DatagramPacket d = new DatagramPacket(new byte[1 << 16], 1 << 16);
                try {
                    client.receive(d);
                    ack(client, decode(d), (InetSocketAddress) d.getSocketAddress());
                } catch (SocketTimeoutException e) {
                    // nothing more pushed
                }
                return Http.json(p.httpAddress(), NS + "/operator/metrics")
                                .get("udpPushAckCount")
                                .asInt()
                        >= 1;
            });
            assertEquals(
                    1,
                    Http.json(p.httpAddress(), NS + "/operator/metrics")
                            .get("subscribeCount")
                            .asInt());
        }
    }

    /** A push datagram as JSON, gunzipped if need be (the client sniffs the gzip magic the same way). */
    private static JsonNode decode(DatagramPacket d) throws Exception {
        byte[] raw = Arrays.copyOf(d.getData(), d.getLength());
        byte[] plain = raw.length > 2 && raw[0] == (byte) 0x1f && raw[1] == (byte) 0x8b
                ? new GZIPInputStream(new ByteArrayInputStream(raw)).readAllBytes()
                : raw;
        return Http.JSON.readTree(plain);
    }

    private static void ack(DatagramSocket client, JsonNode packet, InetSocketAddress to) throws Exception {
        byte[] ack = ("{\"type\": \"push-ack\", \"lastRefTime\":\""
                        + packet.get("lastRefTime").asLong() + "\", \"data\":\"\"}")
                .getBytes(StandardCharsets.UTF_8);
        client.send(new DatagramPacket(ack, ack.length, to));
    }

    @Test
    void theV2InstanceApiAnswersNacosResults() throws Exception {
        ServerProcess p = server();
        String v2 = "/nacos/v2/ns/instance";
        Map<String, String> at = params("serviceName", "v2svc", "groupName", "G4", "ip", "127.0.8.1", "port", "80");
        JsonNode reg = Http.JSON.readTree(
                Http.send(p.httpAddress(), "POST", v2, with(at, "weight", "4")).body());
        assertEquals(0, reg.get("code").asInt(), reg.toString());
        assertEquals("ok", reg.get("data").asText());

        JsonNode list = get(p, v2 + "/list", params("serviceName", "v2svc", "groupName", "G4"));
        assertEquals(0, list.get("code").asInt());
        assertEquals("G4@@v2svc", list.get("data").get("name").asText());
        assertEquals(4.0, list.get("data").get("hosts").get(0).get("weight").asDouble());
        JsonNode detail = get(p, v2, at);
        assertEquals("G4@@v2svc", detail.get("data").get("serviceName").asText());
        assertEquals("127.0.8.1", detail.get("data").get("ip").asText());

        JsonNode del = Http.JSON.readTree(Http.send(p.httpAddress(), "DELETE", v2 + "?" + Http.query(at), Map.of())
                .body());
        assertEquals("ok", del.get("data").asText());
        Http.Response missing = Http.get(p.httpAddress(), v2 + "?" + Http.query(at));
        assertEquals(404, missing.status());
        assertEquals(20004, Http.JSON.readTree(missing.body()).get("code").asInt(), missing.body());
    }
}
