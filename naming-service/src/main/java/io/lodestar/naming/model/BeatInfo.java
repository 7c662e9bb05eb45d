package io.lodestar.naming.model;

import java.util.Map;

/**
 * The full heartbeat a Nacos 1.x client sends (the {@code beat} form field) unless light beats are
 * on: enough to register the instance again when the server has lost it.
 *
 * @param weight      the instance's weight as the client sent it (nacos-client always sends it; an API
 *                    layer should pass 1.0 when it is missing, as 0 would drain the instance)
 * @param serviceName the grouped name the client beats for; may be null
 */
public record BeatInfo(
        String ip, int port, double weight, String cluster, Map<String, String> metadata, String serviceName) {

    public BeatInfo {
        metadata = metadata == null ? Map.of() : metadata;
    }

    /** The instance a beat for an unknown instance registers: ephemeral, healthy and enabled, as Nacos does. */
    public Instance toInstance() {
        return new Instance(null, ip, port, weight, true, true, true, cluster, metadata);
    }
}
