package io.lodestar.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.alibaba.nacos.api.NacosFactory;
import com.alibaba.nacos.api.PropertyKeyConst;
import com.alibaba.nacos.api.exception.NacosException;
import com.alibaba.nacos.api.naming.NamingService;
import com.alibaba.nacos.api.naming.pojo.Instance;
import com.alibaba.nacos.api.naming.pojo.ListView;
import com.fasterxml.jackson.databind.JsonNode;
import io.lodestar.kv.testing.Await;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeSet;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.cloud.client.discovery.DiscoveryClient;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;

/**
 * A Spring Cloud Alibaba app, on its default nacos-client and its default settings but the
 * server's address and a login, against a real server with {@code --auth on}: its {@code
 * DiscoveryClient.getServices()} (which asks the server for page 1 of size {@link
 * Integer#MAX_VALUE}, as Spring Cloud Gateway's discovery locator and Spring Boot Admin rely on)
 * lists every service of its group, whichever protocol registered it and whether its instances are
 * ephemeral or persistent; the HTTP list answers the same to the same page.
 */
class SpringCloudAlibabaDiscoveryIT {
    private static final Duration DEADLINE = Duration.ofSeconds(30);

    @BeforeAll
    static void clientHome() {
        NacosClientHome.init(); // before any nacos-client class loads
    }

    @RegisterExtension
    final LodestarCluster cluster = new LodestarCluster();

    /** The app: nothing of its own but Spring Boot's auto-configuration, Nacos discovery included. */
    @Configuration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    static class DiscoveringApp {}

    @Test
    void getServicesListsEveryServiceOfTheGroupWhicheverProtocolRegisteredIt() throws Exception {
        ServerProcess server = cluster.standalone("sca", "--auth", "on").start();
        server.awaitReady();
        String password = adminPassword(server);
        String token = login(server, password);

        try (ConfigurableApplicationContext app = app(server, password)) {
            DiscoveryClient discovery = app.getBean(DiscoveryClient.class);
            NamingService grpc = grpcClient(server, password);
            try {
                List<String> expected = new ArrayList<>();
                for (int i = 0; i < 3; i++) {
                    expected.add(registerOverHttp(server, token, "http-ephemeral-" + i, true));
                    expected.add(registerOverHttp(server, token, "http-persistent-" + i, false));
                    expected.add(registerOverGrpc(grpc, "grpc-ephemeral-" + i, true));
                    expected.add(registerOverGrpc(grpc, "grpc-persistent-" + i, false));
                }
                grpc.registerInstance("elsewhere", "OTHER_GROUP", "127.0.0.9", 9000);
                List<String> all = List.copyOf(new TreeSet<>(expected));

                Await.until(
                        DEADLINE,
                        "the app's DiscoveryClient lists every service of DEFAULT_GROUP, and only them",
                        () -> new TreeSet<>(discovery.getServices()).equals(new TreeSet<>(all)));

                JsonNode everything = serviceList(server, token, "pageNo=1&pageSize=2147483647");
                assertEquals(all.size(), everything.path("count").asInt(), everything.toString());
                assertEquals(all, names(everything.path("doms")));
                JsonNode pastTheEnd = serviceList(server, token, "pageNo=2147483647&pageSize=2147483647");
                assertEquals(all.size(), pastTheEnd.path("count").asInt(), pastTheEnd.toString());
                assertEquals(0, pastTheEnd.path("doms").size(), "a page past the end is empty, not a wrapped one");

                ListView<String> grpcPastTheEnd = grpc.getServicesOfServer(Integer.MAX_VALUE, Integer.MAX_VALUE);
                assertEquals(all.size(), grpcPastTheEnd.getCount());
                assertEquals(List.of(), grpcPastTheEnd.getData());
            } finally {
                grpc.shutDown();
            }
        }
    }

    @Test
    void theHttpListRefusesAPageNumberOrSizeBelowOneNamingTheField() throws Exception {
        ServerProcess server = cluster.startStandalone("sca-bad");
        for (String field : List.of("pageNo", "pageSize")) {
            for (String value : List.of("0", "-1")) {
                String query =
                        field.equals("pageNo") ? "pageNo=" + value + "&pageSize=10" : "pageNo=1&pageSize=" + value;
                Http.Response r = Http.get(server.httpAddress(), "/nacos/v1/ns/service/list?" + query);
                assertEquals(400, r.status(), query + ": " + r.body());
                assertTrue(r.body().contains(field), query + " names the field: " + r.body());
            }
        }
    }

    private static ConfigurableApplicationContext app(ServerProcess server, String password) {
        return new SpringApplicationBuilder(DiscoveringApp.class)
                .web(WebApplicationType.NONE)
                .properties(
                        "spring.application.name=lodestar-sca-probe",
                        "spring.main.banner-mode=off",
                        "spring.cloud.nacos.discovery.server-addr=" + server.httpAddress(),
                        "spring.cloud.nacos.discovery.username=nacos",
                        "spring.cloud.nacos.discovery.password=" + password)
                .run();
    }

    private static NamingService grpcClient(ServerProcess server, String password) throws NacosException {
        Properties props = new Properties();
        props.put(PropertyKeyConst.SERVER_ADDR, server.httpAddress());
        props.put(PropertyKeyConst.USERNAME, "nacos");
        props.put(PropertyKeyConst.PASSWORD, password);
        return NacosFactory.createNamingService(props);
    }

    private static String registerOverGrpc(NamingService grpc, String service, boolean ephemeral)
            throws NacosException {
        Instance instance = new Instance();
        instance.setIp("127.0.0.2");
        instance.setPort(8080);
        instance.setEphemeral(ephemeral);
        grpc.registerInstance(service, instance);
        return service;
    }

    /** Registers as nacos-client 1.4.x does (the v1 Open API, token as a parameter). */
    private static String registerOverHttp(ServerProcess server, String token, String service, boolean ephemeral)
            throws IOException {
        Http.Response r = Http.postForm(
                server.httpAddress(),
                "/nacos/v1/ns/instance?accessToken=" + token,
                Map.of(
                        "serviceName",
                        service,
                        "ip",
                        "127.0.0.1",
                        "port",
                        "8080",
                        "ephemeral",
                        String.valueOf(ephemeral)));
        assertEquals(200, r.status(), service + ": " + r.body());
        return service;
    }

    private static JsonNode serviceList(ServerProcess server, String token, String query) throws IOException {
        Http.Response r =
                Http.get(server.httpAddress(), "/nacos/v1/ns/service/list?" + query + "&accessToken=" + token);
        assertEquals(200, r.status(), query + ": " + r.body());
        return Http.JSON.readTree(r.body());
    }

    private static List<String> names(JsonNode array) {
        List<String> names = new ArrayList<>();
        array.forEach(n -> names.add(n.asText()));
        return names;
    }

    private static String login(ServerProcess server, String password) throws IOException {
        Http.Response r = Http.postForm(
                server.httpAddress(), "/nacos/v1/auth/users/login", Map.of("username", "nacos", "password", password));
        assertEquals(200, r.status(), r.body());
        return Http.JSON.readTree(r.body()).path("accessToken").asText();
    }

    private static String adminPassword(ServerProcess p) {
        Path file = p.dataDir.resolve("initial-admin-password");
        return Await.result(
                DEADLINE,
                "the admin's password file",
                () -> Files.exists(file) ? Files.readString(file).trim() : null);
    }
}
