package io.lodestar.api.answer;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.lodestar.api.json.Json;
import io.lodestar.naming.ServicePage;
import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The streamed {@code /service/list} body is byte for byte what the map it replaced serialized to,
 * escapes included, and leaves its stream open for the server to finish.
 */
class ServiceListJsonTest {
    private static byte[] asTheMapWas(ServicePage page) throws Exception {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("count", page.count());
        body.put("doms", page.names());
        return Json.MAPPER.writeValueAsBytes(body);
    }

    private static byte[] streamed(ServicePage page) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        NamingJson.writeServiceList(page, out);
        return out.toByteArray();
    }

    @Test
    void theStreamedBodyIsTheMapsBytes() throws Exception {
        List<ServicePage> pages = List.of(
                new ServicePage(0, List.of()),
                new ServicePage(7, List.of("a")),
                new ServicePage(3, List.of("orders", "naïve-服务", "with\"quote", "back\\slash", "tab\tand\u0001")));
        for (ServicePage page : pages) {
            assertArrayEquals(asTheMapWas(page), streamed(page), page.toString());
        }
        assertEquals("{\"count\":7,\"doms\":[\"a\"]}", new String(streamed(pages.get(1)), "UTF-8"));
    }

    @Test
    void aLargePageIsWrittenWhole() throws Exception {
        List<String> names = new ArrayList<>();
        for (int i = 0; i < 50_000; i++) {
            names.add("service-" + i);
        }
        ServicePage page = new ServicePage(names.size(), names);
        assertArrayEquals(asTheMapWas(page), streamed(page));
    }
}
