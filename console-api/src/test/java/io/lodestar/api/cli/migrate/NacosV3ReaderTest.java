package io.lodestar.api.cli.migrate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.lodestar.api.cli.migrate.Items.Beta;
import io.lodestar.api.cli.migrate.Items.Cluster;
import io.lodestar.api.cli.migrate.Items.Config;
import io.lodestar.api.cli.migrate.Items.ConfigKey;
import io.lodestar.api.cli.migrate.Items.Instance;
import io.lodestar.api.cli.migrate.Items.Namespace;
import io.lodestar.api.cli.migrate.Items.Permission;
import io.lodestar.api.cli.migrate.Items.RoleBinding;
import io.lodestar.api.cli.migrate.Items.Service;
import io.lodestar.api.cli.migrate.Items.ServiceKey;
import io.lodestar.api.cli.migrate.Items.User;
import io.lodestar.api.json.Json;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The 3.x reader against answers shaped as Nacos 3's v3 controllers write them ({@code
 * ConfigControllerV3}, {@code NamespaceControllerV3}, {@code ServiceControllerV3}, {@code
 * InstanceControllerV3}, {@code UserControllerV3}, {@code RoleControllerV3}, {@code
 * PermissionControllerV3}: a {@code Result} around a {@code Page} or a model). No Nacos 3 runs
 * here and Lodestar does not serve the v3 admin API, so these recorded shapes are all it is checked
 * against; the 2.x reader is checked against a real server in {@code MigrateIT}.
 */
class NacosV3ReaderTest {
    /** Answers by path, then by the query's {@code pageNo} where a list is paged; asked paths are kept. */
    private final Map<String, String> answers = new java.util.HashMap<>();

    private final List<String> asked = new ArrayList<>();

    private final SourceHttp http = (path, query) -> {
        asked.add(path + " " + query);
        String page = query.get("pageNo");
        String body = answers.getOrDefault(path + (page == null ? "" : "#" + page), answers.get(path));
        return body == null ? Optional.empty() : Optional.of(Json.MAPPER.readTree(body));
    };

    private final NacosV3Reader reader = new NacosV3Reader(http);

    private static String result(String data) {
        return "{\"code\":0,\"message\":\"success\",\"data\":" + data + "}";
    }

    private static String page(int pageNo, int pages, String items) {
        return result("{\"totalCount\":3,\"pageNumber\":" + pageNo + ",\"pagesAvailable\":" + pages + ",\"pageItems\":["
                + items + "]}");
    }

    @Test
    void namespacesWithPublicAsTheEmptyId() throws Exception {
        answers.put(
                "/nacos/v3/admin/core/namespace/list",
                result(
                        "[{\"namespace\":\"public\",\"namespaceShowName\":\"public\",\"namespaceDesc\":\"Public Namespace\","
                                + "\"quota\":200,\"configCount\":1,\"type\":0},"
                                + "{\"namespace\":\"dev\",\"namespaceShowName\":\"Dev\",\"namespaceDesc\":null,\"quota\":200,"
                                + "\"configCount\":2,\"type\":2}]"));
        assertEquals(
                List.of(new Namespace("", "public", "Public Namespace"), new Namespace("dev", "Dev", "")),
                reader.namespaces());
    }

    @Test
    void configsArePagedListedAndReadInDetail() throws Exception {
        String item = "{\"id\":1,\"namespaceId\":\"dev\",\"groupName\":\"G\",\"dataId\":\"%s\",\"md5\":\"x\","
                + "\"type\":\"yaml\",\"appName\":\"\",\"createTime\":1,\"modifyTime\":2}";
        answers.put("/nacos/v3/admin/cs/config/list#1", page(1, 2, item.formatted("a") + "," + item.formatted("b")));
        answers.put("/nacos/v3/admin/cs/config/list#2", page(2, 2, item.formatted("c")));
        assertEquals(
                List.of(new ConfigKey("dev", "G", "a"), new ConfigKey("dev", "G", "b"), new ConfigKey("dev", "G", "c")),
                reader.configKeys("dev"));

        answers.put(
                "/nacos/v3/admin/cs/config",
                result("{\"id\":1,\"namespaceId\":\"dev\",\"groupName\":\"G\",\"dataId\":\"a\",\"md5\":\"x\","
                        + "\"type\":\"yaml\",\"appName\":\"shop\",\"createTime\":1,\"modifyTime\":2,\"content\":\"k: v\","
                        + "\"desc\":\"the shop\",\"encryptedDataKey\":\"\",\"createUser\":\"nacos\",\"createIp\":\"1.2.3.4\","
                        + "\"configTags\":\"t2,t1\"}"));
        ConfigKey key = new ConfigKey("dev", "G", "a");
        Config config = reader.config(key).orElseThrow();
        assertEquals(new Config(key, "k: v", "yaml", "the shop", "t1,t2", "shop"), config);
        assertEquals("t2,t1", config.joinedTags(), "the source's order is kept for the copy");
        assertTrue(asked.get(asked.size() - 1).contains("namespaceId=dev"), asked.toString());
    }

    @Test
    void thePublicNamespaceIsAskedForAsPublic() throws Exception {
        answers.put("/nacos/v3/admin/cs/config/list", page(1, 1, ""));
        reader.configKeys("");
        assertTrue(asked.get(0).contains("namespaceId=public"), asked.toString());
    }

    @Test
    void aBetaIsAGrayReleaseWhoseRuleHoldsTheIpsAndNoneIsA404() throws Exception {
        ConfigKey key = new ConfigKey("", "DEFAULT_GROUP", "a");
        assertEquals(Optional.empty(), reader.beta(key));
        answers.put(
                "/nacos/v3/admin/cs/config/beta",
                result("{\"id\":7,\"namespaceId\":\"public\",\"groupName\":\"DEFAULT_GROUP\",\"dataId\":\"a\","
                        + "\"md5\":\"y\",\"type\":\"text\",\"content\":\"gray\",\"grayName\":\"beta\","
                        + "\"grayRule\":\"{\\\"type\\\":\\\"beta\\\",\\\"version\\\":\\\"1.0.0\\\","
                        + "\\\"expr\\\":\\\"10.0.0.2,10.0.0.1\\\",\\\"priority\\\":2147483647}\"}"));
        assertEquals(Optional.of(new Beta(key, "gray", "10.0.0.1,10.0.0.2")), reader.beta(key));
    }

    @Test
    void servicesWithTheirClustersAndInstances() throws Exception {
        answers.put(
                "/nacos/v3/admin/ns/service/list",
                page(
                        1,
                        1,
                        "{\"name\":\"orders\",\"groupName\":\"G\",\"clusterCount\":2,\"ipCount\":3,"
                                + "\"healthyInstanceCount\":3,\"triggerFlag\":\"false\"}"));
        ServiceKey key = new ServiceKey("", "G", "orders");
        assertEquals(List.of(key), reader.services("", Set.of()));

        answers.put(
                "/nacos/v3/admin/ns/service",
                result("{\"namespaceId\":\"public\",\"serviceName\":\"orders\",\"groupName\":\"G\","
                        + "\"clusterMap\":{\"A\":{\"clusterName\":\"A\",\"healthChecker\":{\"type\":\"HTTP\","
                        + "\"path\":\"/health\",\"headers\":\"\",\"expectedResponseCode\":200},\"healthyCheckPort\":8080,"
                        + "\"useInstancePortForCheck\":false,\"metadata\":{}},\"B\":{\"clusterName\":\"B\","
                        + "\"healthChecker\":{\"type\":\"TCP\"},\"healthyCheckPort\":80,\"useInstancePortForCheck\":true,"
                        + "\"metadata\":{}}},\"metadata\":{\"team\":\"x\"},\"protectThreshold\":0.5,"
                        + "\"selector\":{\"type\":\"none\",\"contextType\":\"NONE\"},\"ephemeral\":false}"));
        Service service = reader.service(key);
        assertEquals(
                new Service(
                        key,
                        0.5,
                        Map.of("team", "x"),
                        Map.of("A", new Cluster("HTTP", "/health", "200", 8080, false), "B", Cluster.DEFAULT)),
                service);

        answers.put(
                "/nacos/v3/admin/ns/instance/list",
                result("[{\"instanceId\":\"10.0.0.1#80#A#G@@orders\",\"ip\":\"10.0.0.1\",\"port\":80,\"weight\":2.0,"
                        + "\"healthy\":true,\"enabled\":false,\"ephemeral\":false,\"clusterName\":\"A\","
                        + "\"serviceName\":\"G@@orders\",\"metadata\":{\"zone\":\"z1\"}}]"));
        assertEquals(
                List.of(new Instance(key, "A", "10.0.0.1", 80, 2.0, false, true, false, Map.of("zone", "z1"))),
                reader.instances(service));
    }

    @Test
    void usersRolesAndPermissionsOrNoneWhereAuthIsOff() throws Exception {
        assertEquals(Optional.empty(), reader.users());
        answers.put(
                "/nacos/v3/auth/user/list",
                page(
                        1,
                        1,
                        "{\"username\":\"nacos\",\"password\":\"$2a$10$hash\"},{\"username\":\"bob\",\"password\":\"$2a$x\"}"));
        answers.put("/nacos/v3/auth/role/list", page(1, 1, "{\"role\":\"dev\",\"username\":\"bob\"}"));
        answers.put(
                "/nacos/v3/auth/permission/list",
                page(1, 1, "{\"role\":\"dev\",\"resource\":\"dev:*:*\",\"action\":\"rw\"}"));
        assertEquals(Optional.of(List.of(new User("nacos"), new User("bob"))), reader.users());
        assertEquals(Optional.of(List.of(new RoleBinding("dev", "bob"))), reader.roles());
        assertEquals(Optional.of(List.of(new Permission("dev", "dev:*:*", "rw"))), reader.permissions());
    }

    @Test
    void aResultWithAnErrorCodeIsAFailureQuotingItsMessage() {
        answers.put(
                "/nacos/v3/admin/core/namespace/list", "{\"code\":30000,\"message\":\"server error\",\"data\":null}");
        SourceHttp.SourceException e = assertThrows(SourceHttp.SourceException.class, reader::namespaces);
        assertTrue(e.getMessage().contains("30000") && e.getMessage().contains("server error"), e.getMessage());
    }

    @Test
    void aGrayRuleThatIsNotJsonIsAFailure() throws Exception {
        JsonNode gray = Json.MAPPER.readTree("{\"dataId\":\"a\",\"grayRule\":\"not json\"}");
        assertThrows(SourceHttp.SourceException.class, () -> NacosV3Reader.betaIps(gray));
    }
}
