package io.lodestar.api.grpc;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.google.protobuf.Any;
import com.google.protobuf.ByteString;
import io.lodestar.api.grpc.wire.Metadata;
import io.lodestar.api.grpc.wire.Payload;
import io.lodestar.api.json.Json;
import io.lodestar.error.InvalidRequestException;
import java.io.IOException;

/**
 * Nacos's payload encoding: the message type's simple class name in the metadata, the message as
 * UTF-8 JSON in the body's {@code Any.value} ({@code type_url} empty, and never read). JSON is read
 * as Nacos's Jackson reads it: unknown fields ignored, any field may be absent.
 */
final class PayloadCodec {
    static final ObjectMapper JSON = Json.PAYLOADS;

    private PayloadCodec() {}

    /** The request's JSON object; a body that is not one is refused, naming what it is. */
    static ObjectNode body(Payload payload) {
        ByteString value = payload.getBody().getValue();
        if (value.isEmpty()) {
            return JSON.createObjectNode();
        }
        JsonNode node;
        try {
            node = JSON.readTree(value.newInput());
        } catch (IOException e) {
            throw new InvalidRequestException("body", "is not JSON: " + firstLine(e.getMessage()));
        }
        if (node == null || node.isMissingNode()) {
            return JSON.createObjectNode();
        }
        if (!(node instanceof ObjectNode object)) {
            throw new InvalidRequestException("body", "is not a JSON object but " + node.getNodeType());
        }
        return object;
    }

    /** {@code body} as the payload of {@code type}, sent by this server (no client IP). */
    static Payload encode(String type, ObjectNode body) {
        byte[] json;
        try {
            json = JSON.writeValueAsBytes(body);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot encode a " + type, e);
        }
        return Payload.newBuilder()
                .setMetadata(Metadata.newBuilder().setType(type))
                .setBody(Any.newBuilder().setValue(ByteString.copyFrom(json)))
                .build();
    }

    private static String firstLine(String message) {
        if (message == null) {
            return "unreadable";
        }
        int nl = message.indexOf('\n');
        return nl < 0 ? message : message.substring(0, nl);
    }
}
