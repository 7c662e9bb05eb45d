package io.lodestar.api.grpc;

import io.lodestar.api.http.Answer;
import java.util.Map;

/** A set-up gRPC connection for tests outside this package: one request type with headers, its answer's code and message. */
public final class GrpcProbe implements AutoCloseable {
    private final RawGrpcClient client;

    public record Answer(String type, int errorCode, String message) {}

    public GrpcProbe(int port) throws InterruptedException {
        client = new RawGrpcClient(port).setUp();
        if (client.awaitPushed("SetupAckRequest", 5) == null) {
            throw new AssertionError("no SetupAckRequest within 5 s");
        }
    }

    /** Sends {@code type} with a body naming a config, and {@code headers} in its metadata. */
    public Answer request(String type, Map<String, String> headers) {
        RawGrpcClient.Message m = client.request(RawGrpcClient.payload(
                type,
                "{\"dataId\":\"checked\",\"group\":\"G\",\"content\":\"c\",\"listen\":true,"
                        + "\"configListenContexts\":[]}",
                headers));
        return new Answer(
                m.type(),
                m.body().path("errorCode").asInt(),
                m.body().path("message").asText());
    }

    @Override
    public void close() throws InterruptedException {
        client.close();
    }
}
