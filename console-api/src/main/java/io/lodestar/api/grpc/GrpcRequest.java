package io.lodestar.api.grpc;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.lodestar.api.request.CheckedRequest;
import io.lodestar.api.request.Fields;
import io.lodestar.api.request.Scoped;
import io.lodestar.error.InvalidRequestException;
import java.util.Map;
import java.util.TreeMap;

/**
 * One request read from a payload: its type, its headers (the metadata's, case-insensitive as
 * Nacos reads them), its JSON body and the connection it came on. Field readers refuse a field
 * of the wrong JSON type, naming it.
 */
final class GrpcRequest implements CheckedRequest {
    private final Connection connection;
    private final String type;
    private final Map<String, String> headers;
    private final ObjectNode body;
    private String caller; // set by the checks, read by the handler, on the dispatching thread
    private Scoped typed; // likewise

    /** What a typed request's handler sees of the request: where it came from and who sent it. */
    record Call(Connection connection, String remoteAddr, String caller) {}

    GrpcRequest(Connection connection, String type, Map<String, String> headers, ObjectNode body) {
        this.connection = connection;
        this.type = type;
        TreeMap<String, String> h = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
        h.putAll(headers);
        this.headers = h;
        this.body = body;
    }

    Connection connection() {
        return connection;
    }

    String type() {
        return type;
    }

    ObjectNode body() {
        return body;
    }

    Call call() {
        return new Call(connection, remoteAddr(), caller);
    }

    /** The body's fields, for the parsers: see {@link #fields(JsonNode)}. */
    Fields fields() {
        return fields(body);
    }

    /**
     * {@code node}'s fields as text, as the parsers read every protocol's fields: null or absent as
     * null; a string as itself; a number or a boolean as its text where Nacos's request classes
     * have one ({@link #NUMBERS_AND_FLAGS}). Any other type is refused, naming the field.
     */
    static Fields fields(JsonNode node) {
        return name -> {
            JsonNode v = node.get(name);
            if (v == null || v.isNull()) {
                return null;
            }
            if (v.isTextual()) {
                return v.textValue();
            }
            if (!(v.isNumber() || v.isBoolean()) || !NUMBERS_AND_FLAGS.contains(name)) {
                throw new InvalidRequestException(name, "must be a string, not " + v.getNodeType());
            }
            return v.asText();
        };
    }

    /** The fields of Nacos's request classes that are numbers or booleans on the wire. */
    private static final java.util.Set<String> NUMBERS_AND_FLAGS = java.util.Set.of(
            "port",
            "weight",
            "enabled",
            "healthy",
            "ephemeral",
            "pageNo",
            "pageSize",
            "listen",
            "subscribe",
            "healthyOnly",
            "udpPort");

    @Override
    public Scoped typed() {
        return typed;
    }

    @Override
    public void typed(Scoped request) {
        this.typed = request;
    }

    @Override
    public String header(String name) {
        return headers.get(name);
    }

    @Override
    public String remoteAddr() {
        return connection.remoteIp();
    }

    @Override
    public String caller() {
        return caller;
    }

    @Override
    public void caller(String username) {
        this.caller = username;
    }

    @Override
    public String operation() {
        return type;
    }

    @Override
    public String param(String name) {
        return text(body, name);
    }

    static String text(JsonNode node, String name) {
        JsonNode v = node.get(name);
        if (v == null || v.isNull()) {
            return null;
        }
        if (!v.isTextual()) {
            throw new InvalidRequestException(name, "must be a string, not " + v.getNodeType());
        }
        return v.textValue();
    }

    static ObjectNode object(JsonNode node, String name) {
        JsonNode v = node.get(name);
        if (v == null || v.isNull()) {
            return null;
        }
        if (!(v instanceof ObjectNode o)) {
            throw new InvalidRequestException(name, "must be an object, not " + v.getNodeType());
        }
        return o;
    }

    @Override
    public String toString() {
        return type + " on " + connection.id();
    }
}
