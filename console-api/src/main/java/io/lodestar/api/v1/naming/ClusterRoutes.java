package io.lodestar.api.v1.naming;

import static io.javalin.http.HandlerType.PUT;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.databind.JsonNode;
import io.lodestar.api.http.Routes;
import io.lodestar.api.request.NamingFields;
import io.lodestar.error.InvalidRequestException;
import io.lodestar.naming.model.CheckerType;
import io.lodestar.naming.model.HealthCheckSettings;
import io.lodestar.naming.service.NamingService;
import java.util.Locale;

/**
 * {@code PUT /nacos/v1/ns/cluster}: how one cluster of a service is probed (Nacos's cluster
 * update): {@code clusterName}, {@code healthChecker} (JSON: {@code {"type":"NONE"|"TCP"|"HTTP",
 * "path":"/health","expectedResponseCode":200}}; HTTP {@code headers} are not supported and
 * refused), {@code checkPort} (80) and {@code useInstancePort4Check} (true). Cluster {@code
 * metadata} is not stored and is refused rather than dropped.
 */
public final class ClusterRoutes {
    private static final String PATH = InstanceRoutes.BASE + "/cluster";

    private ClusterRoutes() {}

    public static void install(Routes routes, NamingService naming) {
        routes.add(
                PUT,
                PATH,
                NamingV1Requests::cluster,
                (op, answer) -> answer.answerWhenDone(
                        "text/plain",
                        naming.updateCluster(op.service(), op.cluster(), op.settings())
                                .thenApply(v -> "ok")));
    }

    static HealthCheckSettings settings(String json, int checkPort, boolean useInstancePort) {
        JsonNode node;
        try {
            node = NamingFields.JSON.readTree(json);
        } catch (JacksonException e) {
            throw new InvalidRequestException("healthChecker", "not valid JSON: " + e.getOriginalMessage());
        }
        if (node == null || !node.isObject() || !node.path("type").isTextual()) {
            throw new InvalidRequestException(
                    "healthChecker", "must be a JSON object with a \"type\" (NONE, TCP or HTTP)");
        }
        CheckerType type;
        try {
            type = CheckerType.valueOf(node.get("type").asText().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new InvalidRequestException(
                    "healthChecker",
                    "type '" + NamingFields.shorten(node.get("type").asText())
                            + "' is not supported (NONE, TCP or HTTP)");
        }
        JsonNode headers = node.get("headers");
        if (headers != null && !headers.isNull() && !headers.asText().isEmpty()) {
            throw new InvalidRequestException("healthChecker", "HTTP probe headers are not supported");
        }
        JsonNode path = node.get("path");
        JsonNode codes = node.get("expectedResponseCode");
        return new HealthCheckSettings(
                type,
                path == null || path.isNull() ? null : path.asText(),
                checkPort,
                useInstancePort,
                codes == null || codes.isNull() ? null : codes.asText());
    }
}
