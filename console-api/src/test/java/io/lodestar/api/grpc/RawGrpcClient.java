package io.lodestar.api.grpc;

import com.fasterxml.jackson.databind.JsonNode;
import com.google.protobuf.Any;
import com.google.protobuf.ByteString;
import io.grpc.CallOptions;
import io.grpc.ClientCall;
import io.grpc.ManagedChannel;
import io.grpc.MethodDescriptor;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.protobuf.ProtoUtils;
import io.grpc.stub.ClientCallStreamObserver;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.ClientResponseObserver;
import io.grpc.stub.StreamObserver;
import io.lodestar.api.grpc.wire.Metadata;
import io.lodestar.api.grpc.wire.Payload;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A gRPC client that sends exactly the payloads a test gives it, as nacos-client would frame them:
 * for the requests no well-behaved client sends. One connection (HTTP/2 channel) per instance.
 */
public final class RawGrpcClient implements AutoCloseable {
    private static final MethodDescriptor.Marshaller<Payload> PAYLOAD =
            ProtoUtils.marshaller(Payload.getDefaultInstance());
    static final MethodDescriptor<Payload, Payload> UNARY = MethodDescriptor.<Payload, Payload>newBuilder()
            .setType(MethodDescriptor.MethodType.UNARY)
            .setFullMethodName("Request/request")
            .setRequestMarshaller(PAYLOAD)
            .setResponseMarshaller(PAYLOAD)
            .build();
    static final MethodDescriptor<Payload, Payload> STREAM = MethodDescriptor.<Payload, Payload>newBuilder()
            .setType(MethodDescriptor.MethodType.BIDI_STREAMING)
            .setFullMethodName("BiRequestStream/requestBiStream")
            .setRequestMarshaller(PAYLOAD)
            .setResponseMarshaller(PAYLOAD)
            .build();

    /** A message as received: its type and its JSON body. */
    public record Message(String type, JsonNode body) {}

    private final ManagedChannel channel;
    private StreamObserver<Payload> toServer;
    /** What the server pushed on the stream, and how the stream ended ("completed" or the error). */
    final BlockingQueue<Message> pushed = new LinkedBlockingQueue<>();

    final BlockingQueue<String> streamEnd = new LinkedBlockingQueue<>();

    /** Messages the stream takes from the transport before it stops reading; -1: it never stops. */
    private int readLimit = -1;

    public RawGrpcClient(int port) {
        this(NettyChannelBuilder.forAddress("127.0.0.1", port).usePlaintext());
    }

    /** A client on a channel {@code builder} configures (e.g. with TLS). */
    public RawGrpcClient(NettyChannelBuilder builder) {
        channel = builder.maxInboundMessageSize(64 << 20).build();
    }

    /**
     * A client set up as {@link #setUp()} does, whose stream then reads only the setup's
     * acknowledgement and nothing after, with HTTP/2's smallest window so the node notices soon.
     */
    static RawGrpcClient setUpAndStopReading(int port) {
        RawGrpcClient c = new RawGrpcClient(
                NettyChannelBuilder.forAddress("127.0.0.1", port).usePlaintext().flowControlWindow(64 << 10));
        c.readLimit = 1;
        return c.setUp();
    }

    public static Payload payload(String type, String json, Map<String, String> headers) {
        return Payload.newBuilder()
                .setMetadata(Metadata.newBuilder()
                        .setType(type)
                        .setClientIp("127.0.0.1")
                        .putAllHeaders(headers))
                .setBody(Any.newBuilder().setValue(ByteString.copyFromUtf8(json)))
                .build();
    }

    /** Sends one unary request and returns the answer. */
    public Message request(String type, String json) {
        return request(payload(type, json, Map.of()));
    }

    public Message request(Payload p) {
        return read(ClientCalls.blockingUnaryCall(
                channel, UNARY, CallOptions.DEFAULT.withDeadlineAfter(10, TimeUnit.SECONDS), p));
    }

    /** Opens the bi-stream and sends {@code ConnectionSetupRequest} on it, negotiating abilities. */
    public RawGrpcClient setUp() {
        openStream();
        toServer.onNext(payload(
                "ConnectionSetupRequest",
                "{\"clientVersion\":\"raw-test\",\"labels\":{\"module\":\"config\"},\"abilityTable\":{},\"module\":\"internal\"}",
                Map.of()));
        return this;
    }

    /** Opens the bi-stream and sends {@code setupJson} as its {@code ConnectionSetupRequest}. */
    RawGrpcClient setUp(String setupJson) {
        openStream();
        toServer.onNext(payload("ConnectionSetupRequest", setupJson, Map.of()));
        return this;
    }

    /** Opens the bi-stream without setting anything up. */
    StreamObserver<Payload> openStream() {
        ClientCall<Payload, Payload> call = channel.newCall(STREAM, CallOptions.DEFAULT);
        toServer = ClientCalls.asyncBidiStreamingCall(call, new ClientResponseObserver<Payload, Payload>() {
            @Override
            public void beforeStart(ClientCallStreamObserver<Payload> stream) {
                if (readLimit >= 0) {
                    stream.disableAutoRequestWithInitial(readLimit);
                }
            }

            @Override
            public void onNext(Payload value) {
                pushed.add(read(value));
            }

            @Override
            public void onError(Throwable t) {
                streamEnd.add(t.toString());
            }

            @Override
            public void onCompleted() {
                streamEnd.add("completed");
            }
        });
        return toServer;
    }

    /** Answers a pushed request as the client does. */
    public void answer(Message pushedRequest, String responseType) {
        String id = pushedRequest.body().path("requestId").asText();
        toServer.onNext(payload(responseType, "{\"resultCode\":200,\"requestId\":\"" + id + "\"}", Map.of()));
    }

    /** The next pushed message of {@code type}, waiting up to {@code seconds}; null if none came. */
    public Message awaitPushed(String type, long seconds) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        while (System.nanoTime() < deadline) {
            Message m = pushed.poll(deadline - System.nanoTime(), TimeUnit.NANOSECONDS);
            if (m != null && m.type().equals(type)) {
                return m;
            }
        }
        return null;
    }

    private static Message read(Payload p) {
        try {
            return new Message(
                    p.getMetadata().getType(),
                    PayloadCodec.JSON.readTree(p.getBody().getValue().toString(StandardCharsets.UTF_8)));
        } catch (IOException e) {
            throw new AssertionError("the server sent a body that is not JSON", e);
        }
    }

    @Override
    public void close() throws InterruptedException {
        channel.shutdownNow();
        channel.awaitTermination(5, TimeUnit.SECONDS);
    }
}
