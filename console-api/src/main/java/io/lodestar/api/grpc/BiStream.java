package io.lodestar.api.grpc;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.grpc.Status;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;
import io.lodestar.api.grpc.wire.Payload;
import io.lodestar.api.limits.Limit;
import io.lodestar.error.InvalidRequestException;
import io.lodestar.error.LimitExceededException;
import java.util.HashMap;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The server side of one connection's bi-stream. Its first message must be the client's {@code
 * ConnectionSetupRequest}, which registers the connection (answered, when the client negotiates
 * abilities, by a pushed {@code SetupAckRequest}); after that the client sends only answers to what
 * the server pushed. The stream's end is the connection's end.
 */
final class BiStream implements StreamObserver<Payload> {
    private static final Logger LOG = LoggerFactory.getLogger(BiStream.class);
    /** What this server can do beyond the basics, as the client asks in its setup. */
    static final Map<String, Boolean> ABILITIES = Map.of("supportPersistentInstanceByGrpc", true);

    private final Connection connection;
    private final Connections connections;
    private final ServerCallStreamObserver<Payload> out;

    BiStream(Connection connection, Connections connections, ServerCallStreamObserver<Payload> out) {
        this.connection = connection;
        this.connections = connections;
        this.out = out;
    }

    @Override
    public void onNext(Payload payload) {
        String type = payload.getMetadata().getType();
        connection.touch();
        if ("ConnectionSetupRequest".equals(type)) {
            setUp(payload);
        } else if (type.endsWith("Response")) {
            ObjectNode body;
            try {
                body = PayloadCodec.body(payload);
                connection.acknowledged(GrpcRequest.text(body, "requestId"));
            } catch (InvalidRequestException e) {
                LOG.debug("{}: unreadable {} ignored: {}", connection, type, e.getMessage());
            }
        } else {
            LOG.debug("{}: a {} on the stream is not a response; ignored", connection, type);
        }
    }

    private void setUp(Payload payload) {
        Connection.Setup setup;
        boolean negotiates;
        try {
            ObjectNode body = PayloadCodec.body(payload);
            Map<String, String> labels = new HashMap<>();
            ObjectNode l = GrpcRequest.object(body, "labels");
            if (l != null) {
                l.fields()
                        .forEachRemaining(
                                e -> labels.put(e.getKey(), e.getValue().asText()));
            }
            setup = new Connection.Setup(
                    GrpcRequest.text(body, "clientVersion"), Map.copyOf(labels), GrpcRequest.text(body, "tenant"));
            long kept = setup.keptBytes();
            if (kept > connections.maxSetupLabelBytes) {
                connections.refused(Limit.GRPC_SETUP_LABEL_BYTES);
                String why = LimitExceededException.tooLarge(
                                Limit.GRPC_SETUP_LABEL_BYTES.key(),
                                connections.maxSetupLabelBytes,
                                "the ConnectionSetupRequest's labels (" + kept + " bytes)")
                        .getMessage();
                connections.close(connection, why);
                out.onError(Status.RESOURCE_EXHAUSTED.withDescription(why).asRuntimeException());
                return;
            }
            JsonNode abilities = body.get("abilityTable");
            negotiates = abilities != null && !abilities.isNull();
        } catch (InvalidRequestException e) {
            connections.close(connection, "unreadable ConnectionSetupRequest: " + e.getMessage());
            return;
        }
        switch (connections.setUp(connection, setup, out)) {
            case IGNORED -> {
                LOG.debug("{}: a second ConnectionSetupRequest ignored", connection);
                return;
            }
            case SENT_ELSEWHERE -> {
                return;
            }
            case SET_UP -> {}
        }
        LOG.debug("{} set up: {}", connection, setup);
        if (negotiates) {
            Reply ack = Reply.push("SetupAckRequest", "internal", null);
            ack.body().remove("requestId");
            ObjectNode table = ack.body().putObject("abilityTable");
            ABILITIES.forEach(table::put);
            connection.send(ack);
        }
    }

    @Override
    public void onError(Throwable t) {
        connections.close(connection, "the client's stream failed: " + t);
    }

    @Override
    public void onCompleted() {
        connections.close(connection, "the client ended its stream");
    }
}
