package io.lodestar.it.bench;

import com.alibaba.nacos.api.grpc.auto.BiRequestStreamGrpc;
import com.alibaba.nacos.api.grpc.auto.Metadata;
import com.alibaba.nacos.api.grpc.auto.Payload;
import com.alibaba.nacos.api.grpc.auto.RequestGrpc;
import com.alibaba.nacos.shaded.com.google.common.util.concurrent.ListenableFuture;
import com.alibaba.nacos.shaded.com.google.protobuf.Any;
import com.alibaba.nacos.shaded.com.google.protobuf.ByteString;
import com.alibaba.nacos.shaded.io.grpc.ManagedChannel;
import com.alibaba.nacos.shaded.io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import com.alibaba.nacos.shaded.io.grpc.netty.shaded.io.netty.channel.EventLoopGroup;
import com.alibaba.nacos.shaded.io.grpc.netty.shaded.io.netty.channel.socket.nio.NioSocketChannel;
import com.alibaba.nacos.shaded.io.grpc.stub.StreamObserver;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;

/**
 * One nacos-client 2.x connection made from the client jar's own protocol classes and shaded
 * gRPC, without the client's threads, caches and rate limiter: the server check, the bi-stream set
 * up as the client sets it up (pushed requests answered as the client answers them), then any
 * unary request. Many share one event loop, so a benchmark can hold thousands, or load a server
 * with exactly the requests it names.
 */
final class RawConnection {
    private final ManagedChannel channel;
    private final RequestGrpc.RequestFutureStub unary;
    private StreamObserver<Payload> stream; // guarded by this

    RawConnection(String host, int grpcPort, EventLoopGroup loop, Executor executor) {
        channel = NettyChannelBuilder.forAddress(host, grpcPort)
                .usePlaintext()
                .eventLoopGroup(loop)
                .channelType(NioSocketChannel.class)
                .executor(executor)
                .build();
        unary = RequestGrpc.newFutureStub(channel);
    }

    /** Server check, then the setup on the bi-stream; returns once the server acknowledged it. */
    RawConnection connect(String module) throws Exception {
        request("ServerCheckRequest", "{\"headers\":{},\"module\":\"internal\"}")
                .get(30, TimeUnit.SECONDS);
        CountDownLatch ack = new CountDownLatch(1);
        StreamObserver<Payload> out = BiRequestStreamGrpc.newStub(channel).requestBiStream(new StreamObserver<>() {
            @Override
            public void onNext(Payload p) {
                String type = p.getMetadata().getType();
                if (type.equals("SetupAckRequest")) {
                    ack.countDown();
                    return;
                }
                String body = p.getBody().getValue().toString(StandardCharsets.UTF_8);
                int at = body.indexOf("\"requestId\":\"");
                String id = at < 0 ? "" : body.substring(at + 13, body.indexOf('"', at + 13));
                send(payload(
                        type.replace("Request", "Response"),
                        "{\"resultCode\":200,\"errorCode\":0,\"requestId\":\"" + id + "\"}"));
            }

            @Override
            public void onError(Throwable t) {}

            @Override
            public void onCompleted() {}
        });
        synchronized (this) {
            stream = out;
        }
        send(payload(
                "ConnectionSetupRequest",
                "{\"headers\":{},\"clientVersion\":\"Nacos-Java-Client:v2.4.3\",\"labels\":{\"source\":\"sdk\","
                        + "\"module\":\"" + module + "\"},\"abilityTable\":{},\"module\":\"internal\"}"));
        if (!ack.await(30, TimeUnit.SECONDS)) {
            throw new IllegalStateException("no SetupAckRequest within 30 s");
        }
        return this;
    }

    private synchronized void send(Payload p) {
        stream.onNext(p);
    }

    ListenableFuture<Payload> request(String type, String json) {
        return unary.withDeadlineAfter(30, TimeUnit.SECONDS).request(payload(type, json));
    }

    /** Throws unless {@code answer} is a success. */
    static void check(Payload answer) {
        String body = answer.getBody().getValue().toString(StandardCharsets.UTF_8);
        if (!body.contains("\"resultCode\":200")) {
            throw new IllegalStateException(answer.getMetadata().getType() + " " + body);
        }
    }

    void close() {
        channel.shutdownNow();
    }

    static Payload payload(String type, String json) {
        return Payload.newBuilder()
                .setMetadata(Metadata.newBuilder().setType(type).setClientIp("127.0.0.1"))
                .setBody(Any.newBuilder().setValue(ByteString.copyFromUtf8(json)))
                .build();
    }
}
