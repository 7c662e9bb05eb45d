package io.lodestar.api.grpc;

import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * One message this server sends: a response to a request, or a request it pushes to a client. The
 * type is Nacos's class name for it (the client's jar maps it back); the body starts with Nacos's
 * response fields ({@code resultCode}, {@code errorCode}, {@code success}) for a response.
 */
record Reply(String type, ObjectNode body) {
    static final int SUCCESS = 200;
    static final int FAIL = 500;

    /** A successful response of {@code type}; add its fields to {@link #body}. */
    static Reply ok(String type) {
        ObjectNode body = PayloadCodec.JSON.createObjectNode();
        body.put("resultCode", SUCCESS).put("errorCode", 0).put("success", true);
        return new Reply(type, body);
    }

    /** A failed response of {@code type}: Nacos's result code 500 with {@code errorCode} and {@code message}. */
    static Reply fail(String type, int errorCode, String message) {
        ObjectNode body = PayloadCodec.JSON.createObjectNode();
        body.put("resultCode", FAIL)
                .put("errorCode", errorCode)
                .put("message", message)
                .put("success", false);
        return new Reply(type, body);
    }

    /** A request this server pushes: Nacos's request fields, with the id the client's answer will carry. */
    static Reply push(String type, String module, String requestId) {
        ObjectNode body = PayloadCodec.JSON.createObjectNode();
        body.putObject("headers");
        body.put("requestId", requestId).put("module", module);
        return new Reply(type, body);
    }

    Reply with(String field, String value) {
        body.put(field, value);
        return this;
    }

    Reply withFlag(String field, boolean value) {
        body.put(field, value);
        return this;
    }
}
