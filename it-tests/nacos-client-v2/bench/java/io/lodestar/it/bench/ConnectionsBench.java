package io.lodestar.it.bench;

import com.alibaba.nacos.api.grpc.auto.BiRequestStreamGrpc;
import com.alibaba.nacos.api.grpc.auto.Metadata;
import com.alibaba.nacos.api.grpc.auto.Payload;
import com.alibaba.nacos.api.grpc.auto.RequestGrpc;
import com.alibaba.nacos.shaded.com.google.protobuf.Any;
import com.alibaba.nacos.shaded.com.google.protobuf.ByteString;
import com.alibaba.nacos.shaded.io.grpc.ManagedChannel;
import com.alibaba.nacos.shaded.io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import com.alibaba.nacos.shaded.io.grpc.netty.shaded.io.netty.channel.nio.NioEventLoopGroup;
import com.alibaba.nacos.shaded.io.grpc.netty.shaded.io.netty.channel.socket.nio.NioSocketChannel;
import com.alibaba.nacos.shaded.io.grpc.stub.StreamObserver;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Many idle nacos-client 2.x connections on one server, each as the client holds one: a bi-stream
 * set up with the client's {@code ConnectionSetupRequest}, one ephemeral instance registered and
 * one config listened to; pushed requests (client detection, config notices) are answered as the
 * client answers them. Built from the client jar's own protocol classes and shaded gRPC, so that
 * ten thousand connections fit in one JVM (the client itself runs threads per instance). Prints
 * {@code connections_up N} and {@code setup_s S}, then holds them for {@code --hold} seconds (the
 * caller measures the server meanwhile) and closes them.
 *
 * <pre>ConnectionsBench --server H:P --count N [--hold S]</pre>
 */
public final class ConnectionsBench {
    private static final int IN_FLIGHT = 64;

    private ConnectionsBench() {}

    public static void main(String[] args) throws Exception {
        String server = option(args, "--server", "127.0.0.1:8848");
        int count = Integer.parseInt(option(args, "--count", "10000"));
        int hold = Integer.parseInt(option(args, "--hold", "60"));
        String host = server.substring(0, server.lastIndexOf(':'));
        int grpcPort = Integer.parseInt(server.substring(server.lastIndexOf(':') + 1)) + 1000;

        NioEventLoopGroup loop = new NioEventLoopGroup(2);
        ExecutorService exec = Executors.newFixedThreadPool(4);
        List<ManagedChannel> channels = new ArrayList<>(count);
        Semaphore inFlight = new Semaphore(IN_FLIGHT);
        AtomicInteger up = new AtomicInteger();
        AtomicInteger failed = new AtomicInteger();
        long t0 = System.nanoTime();
        for (int i = 0; i < count; i++) {
            inFlight.acquire();
            ManagedChannel ch = NettyChannelBuilder.forAddress(host, grpcPort)
                    .usePlaintext()
                    .eventLoopGroup(loop)
                    .channelType(NioSocketChannel.class)
                    .executor(exec)
                    .build();
            channels.add(ch);
            int n = i;
            exec.execute(() -> {
                try {
                    connect(ch, n);
                    up.incrementAndGet();
                } catch (Exception e) {
                    if (failed.incrementAndGet() <= 5) {
                        System.err.println("connection " + n + " failed: " + e);
                    }
                } finally {
                    inFlight.release();
                }
            });
        }
        inFlight.acquire(IN_FLIGHT);
        System.out.printf("connections_up %d%n", up.get());
        System.out.printf("connections_failed %d%n", failed.get());
        System.out.printf("setup_s %.1f%n", (System.nanoTime() - t0) / 1e9);
        System.out.flush();
        Thread.sleep(hold * 1000L);
        for (ManagedChannel ch : channels) {
            ch.shutdownNow();
        }
        loop.shutdownGracefully();
        exec.shutdownNow();
        System.exit(0);
    }

    /** One connection, as the client makes it: server check, setup on the stream, a registration, a listen. */
    private static void connect(ManagedChannel ch, int n) throws Exception {
        RequestGrpc.RequestBlockingStub unary = RequestGrpc.newBlockingStub(ch).withDeadlineAfter(30, TimeUnit.SECONDS);
        unary.request(payload("ServerCheckRequest", "{\"headers\":{},\"module\":\"internal\"}"));
        StreamObserver<Payload>[] out = new StreamObserver[1];
        java.util.concurrent.CountDownLatch ack = new java.util.concurrent.CountDownLatch(1);
        out[0] = BiRequestStreamGrpc.newStub(ch).requestBiStream(new StreamObserver<>() {
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
                String answer = type.replace("Request", "Response");
                synchronized (out) {
                    out[0].onNext(payload(answer, "{\"resultCode\":200,\"errorCode\":0,\"requestId\":\"" + id + "\"}"));
                }
            }

            @Override
            public void onError(Throwable t) {}

            @Override
            public void onCompleted() {}
        });
        synchronized (out) {
            out[0].onNext(payload(
                    "ConnectionSetupRequest",
                    "{\"headers\":{},\"clientVersion\":\"Nacos-Java-Client:v2.4.3\",\"labels\":{\"source\":\"sdk\","
                            + "\"module\":\"naming\"},\"abilityTable\":{},\"module\":\"internal\"}"));
        }
        if (!ack.await(30, TimeUnit.SECONDS)) {
            throw new IllegalStateException("no SetupAckRequest");
        }
        check(unary.request(payload(
                "InstanceRequest",
                "{\"headers\":{},\"namespace\":\"public\",\"serviceName\":\"conn-bench\",\"groupName\":\"DEFAULT_GROUP\","
                        + "\"type\":\"registerInstance\",\"instance\":{\"ip\":\"127.0.0.1\",\"port\":" + (20_000 + n)
                        + ",\"weight\":1.0,\"healthy\":true,\"enabled\":true,\"ephemeral\":true,"
                        + "\"clusterName\":\"DEFAULT\",\"metadata\":{}},\"module\":\"naming\"}")));
        check(unary.request(payload(
                "ConfigBatchListenRequest",
                "{\"headers\":{},\"listen\":true,\"configListenContexts\":[{\"group\":\"BENCH\",\"md5\":\"\","
                        + "\"dataId\":\"conn-bench-" + n + "\",\"tenant\":\"\"}],\"module\":\"config\"}")));
    }

    private static void check(Payload answer) {
        String body = answer.getBody().getValue().toString(StandardCharsets.UTF_8);
        if (!body.contains("\"resultCode\":200")) {
            throw new IllegalStateException(answer.getMetadata().getType() + " " + body);
        }
    }

    private static Payload payload(String type, String json) {
        return Payload.newBuilder()
                .setMetadata(Metadata.newBuilder().setType(type).setClientIp("127.0.0.1"))
                .setBody(Any.newBuilder().setValue(ByteString.copyFromUtf8(json)))
                .build();
    }

    private static String option(String[] args, String name, String absent) {
        int i = Arrays.asList(args).indexOf(name);
        return i >= 0 && i + 1 < args.length ? args[i + 1] : absent;
    }
}
