package io.lodestar.it.bench;

import com.google.protobuf.Any;
import com.google.protobuf.ByteString;
import io.grpc.MethodDescriptor;
import io.grpc.Server;
import io.grpc.ServerServiceDefinition;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.protobuf.ProtoUtils;
import io.grpc.stub.ServerCalls;
import io.grpc.stub.StreamObserver;
import io.lodestar.api.grpc.wire.Metadata;
import io.lodestar.api.grpc.wire.Payload;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * The floor of Nacos's gRPC protocol on this machine: grpc-java's server (the one Lodestar runs,
 * from its jar) answering every unary request at once with a canned success of the matching
 * response type, the JSON bodies neither parsed nor built; a config query gets a 512-byte content
 * as GrpcLoadBench's query reads. A bi-stream's setup is acknowledged, nothing else on it read. Side by side with a server
 * under GrpcLoadBench it shows what the transport alone costs, and so how far a server's own work
 * can be from it.
 *
 * <pre>BENCH_JAVA_OPTS=-Xmx512m it-tests/bench/run.sh GrpcCeiling [--port 9848]</pre>
 * (GrpcLoadBench's {@code --server} is the HTTP address: the gRPC port minus 1000.)
 */
public final class GrpcCeiling {
    private static final MethodDescriptor.Marshaller<Payload> PAYLOAD =
            ProtoUtils.marshaller(Payload.getDefaultInstance());

    private GrpcCeiling() {}

    public static void main(String[] args) throws Exception {
        if (Arrays.asList(args).contains("--help")) {
            System.out.println("usage: GrpcCeiling [--port 9848]");
            return;
        }
        int i = Arrays.asList(args).indexOf("--port");
        int port = i >= 0 ? Integer.parseInt(args[i + 1]) : 9848;
        String success = "{\"resultCode\":200,\"errorCode\":0,\"success\":true";
        Payload checked = payload("ServerCheckResponse", success + ",\"connectionId\":\"ceiling\"}");
        Payload queried = payload(
                "ConfigQueryResponse",
                success + ",\"content\":\"" + "x".repeat(512) + "\",\"md5\":\"-\",\"contentType\":\"text\"}");
        Payload setupAck = payload("SetupAckRequest", "{\"abilityTable\":{},\"module\":\"internal\"}");
        ServerServiceDefinition unary = ServerServiceDefinition.builder("Request")
                .addMethod(
                        method("Request/request", MethodDescriptor.MethodType.UNARY),
                        ServerCalls.asyncUnaryCall((Payload request, StreamObserver<Payload> out) -> {
                            String type = request.getMetadata().getType();
                            out.onNext(
                                    switch (type) {
                                        case "ServerCheckRequest" -> checked;
                                        case "ConfigQueryRequest" -> queried;
                                        default -> payload(type.replaceFirst("Request$", "Response"), success + "}");
                                    });
                            out.onCompleted();
                        }))
                .build();
        ServerServiceDefinition stream = ServerServiceDefinition.builder("BiRequestStream")
                .addMethod(
                        method("BiRequestStream/requestBiStream", MethodDescriptor.MethodType.BIDI_STREAMING),
                        ServerCalls.asyncBidiStreamingCall(out -> new StreamObserver<Payload>() {
                            @Override
                            public void onNext(Payload value) {
                                if (value.getMetadata().getType().equals("ConnectionSetupRequest")) {
                                    out.onNext(setupAck);
                                }
                            }

                            @Override
                            public void onError(Throwable t) {}

                            @Override
                            public void onCompleted() {
                                out.onCompleted();
                            }
                        }))
                .build();
        Server server = NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", port))
                .addService(unary)
                .addService(stream)
                .build()
                .start();
        System.out.println("GrpcCeiling on 127.0.0.1:" + server.getPort());
        server.awaitTermination();
    }

    static MethodDescriptor<Payload, Payload> method(String name, MethodDescriptor.MethodType type) {
        return MethodDescriptor.<Payload, Payload>newBuilder()
                .setType(type)
                .setFullMethodName(name)
                .setRequestMarshaller(PAYLOAD)
                .setResponseMarshaller(PAYLOAD)
                .build();
    }

    private static Payload payload(String type, String json) {
        return Payload.newBuilder()
                .setMetadata(Metadata.newBuilder().setType(type))
                .setBody(Any.newBuilder().setValue(ByteString.copyFrom(json, StandardCharsets.UTF_8)))
                .build();
    }
}
