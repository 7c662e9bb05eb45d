package io.lodestar.api.cli.naming;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import io.lodestar.api.cli.client.Output;

/** The rows and columns an instance list is shown with, by {@code naming list} and {@code naming watch} alike. */
final class Instances {
    static final String[] COLUMNS = {"ip", "port", "cluster", "weight", "healthy", "enabled", "ephemeral", "metadata"};

    private Instances() {}

    /** The {@code hosts} of a v1 instance list, as rows sorted by the server (cluster, ip, port). */
    static ArrayNode rows(JsonNode list) {
        ArrayNode rows = Output.rows();
        for (JsonNode h : list.path("hosts")) {
            rows.add(Output.row()
                    .put("ip", h.path("ip").asText())
                    .put("port", h.path("port").asInt())
                    .put("cluster", h.path("clusterName").asText())
                    .put("weight", h.path("weight").asDouble())
                    .put("healthy", h.path("healthy").asBoolean())
                    .put("enabled", h.path("enabled").asBoolean())
                    .put("ephemeral", h.path("ephemeral").asBoolean())
                    .set("metadata", h.path("metadata")));
        }
        return rows;
    }
}
