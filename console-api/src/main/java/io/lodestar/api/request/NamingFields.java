package io.lodestar.api.request;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.lodestar.api.json.Json;
import io.lodestar.error.InvalidRequestException;
import io.lodestar.naming.model.BeatInfo;
import io.lodestar.naming.model.Instance;
import io.lodestar.naming.model.NamingValidation;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Reads the naming fields of a request, in every protocol: an instance, its metadata, numbers and
 * flags. Every malformed value becomes an {@link InvalidRequestException} on that field, so a bad
 * request is a 400 that says which field is wrong and nothing is written. The same rules hold for
 * HTTP parameters (text) and gRPC bodies (JSON, whose numbers and booleans are read as their text).
 *
 * <p>Stricter than Nacos where Nacos would fail later with a 500 or silently read garbage: numbers
 * must parse, booleans are {@code true} or {@code false} (any case), metadata is a JSON object or
 * Nacos's {@code k=v,k2=v2} form.
 */
public final class NamingFields {
    public static final ObjectMapper JSON = Json.MAPPER;

    private NamingFields() {}

    public static String required(Fields q, String name) {
        String value = q.get(name);
        if (value == null || value.isBlank()) {
            throw new InvalidRequestException(name, "is required");
        }
        return value;
    }

    /** {@code clusterName}, else Nacos's older {@code cluster}, else {@value Instance#DEFAULT_CLUSTER}. */
    public static String cluster(Fields q) {
        String cluster = q.get("clusterName");
        if (cluster == null || cluster.isBlank()) {
            cluster = q.get("cluster");
        }
        return cluster == null || cluster.isBlank() ? Instance.DEFAULT_CLUSTER : cluster;
    }

    public static int port(Fields q) {
        return port("port", required(q, "port"));
    }

    public static int port(String name, String value) {
        int port = integer(name, value);
        NamingValidation.checkPort(port);
        return port;
    }

    /** An integer parameter in {@code min..max}, or {@code fallback} when absent or blank. */
    public static int integer(Fields q, String name, int fallback, int min, int max) {
        String value = q.get(name);
        if (value == null || value.isBlank()) {
            return fallback;
        }
        int n = integer(name, value);
        if (n < min || n > max) {
            throw new InvalidRequestException(name, n + " is out of range " + min + ".." + max);
        }
        return n;
    }

    private static int integer(String name, String value) {
        try {
            return Integer.parseInt(value.trim());
        } catch (NumberFormatException e) {
            throw new InvalidRequestException(name, "'" + shorten(value) + "' is not an integer");
        }
    }

    /** A finite number, or {@code fallback} when absent or blank. */
    public static double number(Fields q, String name, double fallback) {
        String value = q.get(name);
        if (value == null || value.isBlank()) {
            return fallback;
        }
        return number(name, value);
    }

    /** A finite number, or null when absent or blank. */
    public static Double optionalNumber(Fields q, String name) {
        String value = q.get(name);
        return value == null || value.isBlank() ? null : number(name, value);
    }

    private static double number(String name, String value) {
        try {
            double d = Double.parseDouble(value.trim());
            if (Double.isFinite(d)) {
                return d;
            }
        } catch (NumberFormatException e) {
            // answered below
        }
        throw new InvalidRequestException(name, "'" + shorten(value) + "' is not a number");
    }

    public static boolean bool(Fields q, String name, boolean fallback) {
        Boolean b = optionalBool(q, name);
        return b == null ? fallback : b;
    }

    /** {@code true}/{@code false} in any case, or null when absent or blank. */
    public static Boolean optionalBool(Fields q, String name) {
        String value = q.get(name);
        if (value == null || value.isBlank()) {
            return null;
        }
        return switch (value.trim().toLowerCase(Locale.ROOT)) {
            case "true" -> true;
            case "false" -> false;
            default -> throw new InvalidRequestException(name, "'" + shorten(value) + "' is not true or false");
        };
    }

    /** Nacos's {@code enabled}, or the 1.x client's {@code enable}; null when neither is given. */
    public static Boolean enabled(Fields q) {
        Boolean enabled = optionalBool(q, "enabled");
        return enabled != null ? enabled : optionalBool(q, "enable");
    }

    /** The {@code metadata} parameter; empty when absent or blank. */
    public static Map<String, String> metadata(Fields q) {
        return metadata("metadata", q.get("metadata"));
    }

    /** The {@code metadata} parameter, or null when absent or blank. */
    public static Map<String, String> optionalMetadata(Fields q) {
        String raw = q.get("metadata");
        return raw == null || raw.isBlank() ? null : metadata("metadata", raw);
    }

    /**
     * Metadata as Nacos accepts it: a JSON object whose values are strings (numbers and booleans
     * are taken as their text, nulls dropped), or {@code k=v,k2=v2}. Anything else, nested values
     * included, is refused rather than stored as something the sender did not mean.
     */
    public static Map<String, String> metadata(String field, String raw) {
        Map<String, String> out = new LinkedHashMap<>();
        if (raw == null || raw.isBlank()) {
            return out;
        }
        String text = raw.trim();
        if (text.startsWith("{")) {
            JsonNode node;
            try {
                node = JSON.readTree(text);
            } catch (JacksonException e) {
                throw new InvalidRequestException(field, "not a JSON object: " + e.getOriginalMessage());
            }
            return fromJsonObject(field, node);
        }
        if (text.startsWith("[") || text.startsWith("\"")) {
            throw new InvalidRequestException(field, "must be a JSON object of strings or k=v pairs separated by ','");
        }
        for (String pair : text.split(",")) {
            String[] kv = pair.split("=", -1);
            if (kv.length != 2 || kv[0].isEmpty() || kv[1].isEmpty()) {
                throw new InvalidRequestException(
                        field,
                        "must be a JSON object of strings or k=v pairs separated by ','" + " ('" + shorten(pair)
                                + "' is neither)");
            }
            out.put(kv[0], kv[1]);
        }
        return out;
    }

    public static Map<String, String> fromJsonObject(String field, JsonNode node) {
        if (node == null || !node.isObject()) {
            throw new InvalidRequestException(field, "must be a JSON object of strings");
        }
        Map<String, String> out = new LinkedHashMap<>();
        for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            JsonNode v = e.getValue();
            if (v.isNull()) {
                continue;
            }
            if (!v.isValueNode()) {
                throw new InvalidRequestException(
                        field,
                        "the value of '" + shorten(e.getKey()) + "' must be a string, not "
                                + (v.isArray() ? "an array" : "an object"));
            }
            out.put(e.getKey(), v.asText());
        }
        return out;
    }

    /**
     * The cluster filter of a list query: the names in {@code clusters} separated by {@code ,},
     * blanks skipped, in the order given.
     */
    public static Set<String> clusterSet(String clusters) {
        Set<String> out = new LinkedHashSet<>();
        if (clusters == null) {
            return out;
        }
        for (String c : clusters.split(",")) {
            if (!c.isBlank()) {
                out.add(c.trim());
            }
        }
        return out;
    }

    /**
     * The instance a register or update describes: {@code ip}, {@code port}, {@code clusterName},
     * {@code weight} (1), {@code enabled}/{@code enable} (true), {@code healthy} (true), {@code
     * ephemeral} (true) and {@code metadata}.
     */
    public static Instance instance(Fields q) {
        return instance(q, metadata(q), bool(q, "ephemeral", true));
    }

    /**
     * The instance {@code q} describes, with {@code metadata} read by the caller (a string over
     * HTTP, an object in a gRPC body) and {@code ephemeral} as the request stands for it.
     */
    public static Instance instance(Fields q, Map<String, String> metadata, boolean ephemeral) {
        String ip = required(q, "ip");
        int port = port(q);
        double weight = number(q, "weight", 1.0);
        Boolean enabled = enabled(q);
        boolean healthy = bool(q, "healthy", true);
        return new Instance(
                null, ip, port, weight, enabled == null || enabled, healthy, ephemeral, cluster(q), metadata);
    }

    /**
     * The {@code beat} parameter (the 1.x client's BeatInfo JSON): {@code ip}, {@code port},
     * {@code weight} (1 when absent), {@code cluster}, {@code metadata}, {@code serviceName}; the
     * client's scheduling fields are ignored. A missing ip or port is taken from the request's own.
     */
    public static BeatInfo beat(String raw, String ip, Integer port) {
        JsonNode node;
        try {
            node = JSON.readTree(raw);
        } catch (JacksonException e) {
            throw new InvalidRequestException("beat", "not valid JSON: " + e.getOriginalMessage());
        }
        if (node == null || !node.isObject()) {
            throw new InvalidRequestException("beat", "must be a JSON object (the client's BeatInfo)");
        }
        String beatIp = text(node, "ip");
        if (beatIp == null) {
            beatIp = ip;
        }
        if (beatIp == null) {
            throw new InvalidRequestException("ip", "is required (in the request or the beat)");
        }
        int beatPort;
        JsonNode p = node.get("port");
        if (p == null || p.isNull()) {
            if (port == null) {
                throw new InvalidRequestException("port", "is required (in the request or the beat)");
            }
            beatPort = port;
        } else {
            if (!p.canConvertToExactIntegral() || !p.canConvertToInt()) {
                throw new InvalidRequestException("beat", "port must be an integer, not " + shorten(p.toString()));
            }
            beatPort = p.asInt();
        }
        double weight = 1.0;
        JsonNode w = node.get("weight");
        if (w != null && !w.isNull()) {
            if (!w.isNumber() || !Double.isFinite(w.asDouble())) {
                throw new InvalidRequestException("beat", "weight must be a number, not " + shorten(w.toString()));
            }
            weight = w.asDouble();
        }
        JsonNode metadata = node.get("metadata");
        Map<String, String> meta = metadata == null || metadata.isNull() ? Map.of() : fromJsonObject("beat", metadata);
        return new BeatInfo(beatIp, beatPort, weight, text(node, "cluster"), meta, text(node, "serviceName"));
    }

    private static String text(JsonNode node, String field) {
        JsonNode v = node.get(field);
        if (v == null || v.isNull()) {
            return null;
        }
        if (!v.isTextual()) {
            throw new InvalidRequestException("beat", field + " must be a string, not " + shorten(v.toString()));
        }
        return v.asText();
    }

    /** A value quoted in an error message, cut so a huge parameter does not make a huge answer. */
    public static String shorten(String s) {
        return s.length() <= 64 ? s : s.substring(0, 64) + "...";
    }
}
