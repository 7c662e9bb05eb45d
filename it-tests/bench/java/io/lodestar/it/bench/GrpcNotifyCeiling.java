package io.lodestar.it.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.google.protobuf.Any;
import com.google.protobuf.ByteString;
import io.grpc.MethodDescriptor;
import io.grpc.Server;
import io.grpc.ServerServiceDefinition;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.ServerCalls;
import io.grpc.stub.StreamObserver;
import io.lodestar.api.grpc.wire.Metadata;
import io.lodestar.api.grpc.wire.Payload;
import java.io.IOException;
import java.math.BigInteger;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The floor of config notify latency over gRPC on this machine: just enough of Nacos's config
 * protocol for the unmodified client's publish, listen and push-then-query (configs in a map, no
 * Raft and no disk), on the grpc-java server Lodestar runs. A publish pushes {@code
 * ConfigChangeNotifyRequest} at once to every connected client (listening or not: a client ignores
 * a notice for a key it does not hold). {@code GrpcClientBench notify} against it measures what the
 * client, the transport and this machine cost, which no server gets under.
 *
 * <pre>BENCH_JAVA_OPTS=-Xmx512m it-tests/bench/run.sh GrpcNotifyCeiling [--port 9848]</pre>
 */
public final class GrpcNotifyCeiling {
    private static final ObjectMapper JSON = new ObjectMapper();

    private final Map<String, String> configs = new ConcurrentHashMap<>();
    private final Set<StreamObserver<Payload>> streams = ConcurrentHashMap.newKeySet();
    private final AtomicLong pushIds = new AtomicLong();

    private GrpcNotifyCeiling() {}

    public static void main(String[] args) throws Exception {
        if (Arrays.asList(args).contains("--help")) {
            System.out.println("usage: GrpcNotifyCeiling [--port 9848]");
            return;
        }
        int i = Arrays.asList(args).indexOf("--port");
        int port = i >= 0 ? Integer.parseInt(args[i + 1]) : 9848;
        GrpcNotifyCeiling ceiling = new GrpcNotifyCeiling();
        Server server = NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", port))
                .addService(ServerServiceDefinition.builder("Request")
                        .addMethod(
                                GrpcCeiling.method("Request/request", MethodDescriptor.MethodType.UNARY),
                                ServerCalls.asyncUnaryCall((Payload request, StreamObserver<Payload> out) -> {
                                    out.onNext(ceiling.answer(request));
                                    out.onCompleted();
                                }))
                        .build())
                .addService(ServerServiceDefinition.builder("BiRequestStream")
                        .addMethod(
                                GrpcCeiling.method(
                                        "BiRequestStream/requestBiStream", MethodDescriptor.MethodType.BIDI_STREAMING),
                                ServerCalls.asyncBidiStreamingCall(ceiling::stream))
                        .build())
                .build()
                .start();
        System.out.println("GrpcNotifyCeiling on 127.0.0.1:" + server.getPort());
        server.awaitTermination();
    }

    private StreamObserver<Payload> stream(StreamObserver<Payload> out) {
        return new StreamObserver<>() {
            @Override
            public void onNext(Payload value) {
                if (value.getMetadata().getType().equals("ConnectionSetupRequest")) {
                    streams.add(out);
                    send(out, payload("SetupAckRequest", JSON.createObjectNode().put("module", "internal")));
                }
            }

            @Override
            public void onError(Throwable t) {
                streams.remove(out);
            }

            @Override
            public void onCompleted() {
                streams.remove(out);
                out.onCompleted();
            }
        };
    }

    private Payload answer(Payload request) {
        String type = request.getMetadata().getType();
        JsonNode body;
        try {
            body = JSON.readTree(request.getBody().getValue().toByteArray());
        } catch (IOException e) {
            return payload("ErrorResponse", fail());
        }
        ObjectNode ok = JSON.createObjectNode()
                .put("resultCode", 200)
                .put("errorCode", 0)
                .put("success", true);
        switch (type) {
            case "ServerCheckRequest" -> {
                return payload("ServerCheckResponse", ok.put("connectionId", "ceiling-" + pushIds.incrementAndGet()));
            }
            case "ConfigPublishRequest" -> {
                configs.put(key(body), body.path("content").asText());
                Payload notice = payload(
                        "ConfigChangeNotifyRequest",
                        JSON.createObjectNode()
                                .put("requestId", Long.toString(pushIds.incrementAndGet()))
                                .put("module", "config")
                                .put("dataId", body.path("dataId").asText())
                                .put("group", body.path("group").asText())
                                .put("tenant", body.path("tenant").asText("")));
                streams.forEach(s -> send(s, notice));
                return payload("ConfigPublishResponse", ok);
            }
            case "ConfigQueryRequest" -> {
                String content = configs.get(key(body));
                if (content == null) {
                    return payload("ConfigQueryResponse", fail().put("errorCode", 300));
                }
                return payload(
                        "ConfigQueryResponse",
                        ok.put("content", content).put("md5", md5(content)).put("contentType", "text"));
            }
            case "ConfigBatchListenRequest" -> {
                ArrayNode changed = ok.putArray("changedConfigs");
                for (JsonNode c : body.path("configListenContexts")) {
                    String content = configs.get(key(c));
                    String md5 = content == null ? "" : md5(content);
                    if (!md5.equals(c.path("md5").asText(""))) {
                        changed.addObject()
                                .put("dataId", c.path("dataId").asText())
                                .put("group", c.path("group").asText())
                                .put("tenant", c.path("tenant").asText(""));
                    }
                }
                return payload("ConfigChangeBatchListenResponse", ok);
            }
            default -> {
                return payload(type.replaceFirst("Request$", "Response"), ok);
            }
        }
    }

    private static ObjectNode fail() {
        return JSON.createObjectNode()
                .put("resultCode", 500)
                .put("errorCode", 500)
                .put("success", false);
    }

    private static String key(JsonNode n) {
        return n.path("tenant").asText("") + "+" + n.path("group").asText() + "+"
                + n.path("dataId").asText();
    }

    private static String md5(String content) {
        try {
            byte[] d = MessageDigest.getInstance("MD5").digest(content.getBytes(StandardCharsets.UTF_8));
            return String.format("%032x", new BigInteger(1, d));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private static void send(StreamObserver<Payload> stream, Payload p) {
        synchronized (stream) {
            try {
                stream.onNext(p);
            } catch (RuntimeException closed) {
                // the client went away
            }
        }
    }

    private static Payload payload(String type, ObjectNode body) {
        try {
            return Payload.newBuilder()
                    .setMetadata(Metadata.newBuilder().setType(type))
                    .setBody(Any.newBuilder().setValue(ByteString.copyFrom(JSON.writeValueAsBytes(body))))
                    .build();
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }
}
