package io.lodestar.it;

import com.alibaba.nacos.api.grpc.auto.BiRequestStreamGrpc;
import com.alibaba.nacos.api.grpc.auto.Metadata;
import com.alibaba.nacos.api.grpc.auto.Payload;
import com.alibaba.nacos.api.grpc.auto.RequestGrpc;
import com.alibaba.nacos.shaded.com.google.protobuf.Any;
import com.alibaba.nacos.shaded.com.google.protobuf.ByteString;
import com.alibaba.nacos.shaded.io.grpc.ManagedChannel;
import com.alibaba.nacos.shaded.io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import com.alibaba.nacos.shaded.io.grpc.netty.shaded.io.netty.channel.EventLoopGroup;
import com.alibaba.nacos.shaded.io.grpc.netty.shaded.io.netty.channel.socket.nio.NioSocketChannel;
import com.alibaba.nacos.shaded.io.grpc.stub.StreamObserver;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * A light stand-in for one nacos-client 2.x connection, so that a test can hold hundreds in one
 * JVM (the official client runs threads of its own per instance): the server check and the
 * bi-stream set up as the client sets them up (its own client version, {@link #VERSION}, tells
 * them apart from official clients on {@code /nacos/v2/core/loader/current}), pushed requests
 * answered, and what the official client does with a {@code ConnectResetRequest}: connect to the
 * server it names (its HTTP address; the gRPC port is that + 1000), or to another of its servers
 * when it names none, then drop the old connection. A connection that ends under it (its server
 * stopped) reconnects to another of its servers likewise.
 *
 * <p>Thread-safety: its state is guarded by itself; pushes arrive on the channel's executor,
 * reconnects run on {@code tasks}.
 */
final class FollowingClient implements AutoCloseable {
    static final String VERSION = "lodestar-it-following-client";
    private static final ObjectMapper JSON = new ObjectMapper();

    private final List<String> servers; // HTTP host:port
    private final EventLoopGroup loop;
    private final ScheduledExecutorService tasks;
    private ManagedChannel channel; // guarded by this
    private StreamObserver<Payload> stream; // guarded by this
    private String server; // guarded by this: the HTTP address connected to
    private boolean closed; // guarded by this
    private int moves; // guarded by this

    FollowingClient(List<String> servers, EventLoopGroup loop, ScheduledExecutorService tasks) {
        this.servers = List.copyOf(servers);
        this.loop = loop;
        this.tasks = tasks;
    }

    /** Connects to {@code first}; throws if it cannot within 30 s. */
    FollowingClient connect(String first) throws Exception {
        open(first);
        return this;
    }

    /** The HTTP address of the server it is connected to (or last was). */
    synchronized String server() {
        return server;
    }

    /** How many times it connected elsewhere. */
    synchronized int moves() {
        return moves;
    }

    private void open(String to) throws Exception {
        int colon = to.lastIndexOf(':');
        ManagedChannel next = NettyChannelBuilder.forAddress(
                        to.substring(0, colon), Integer.parseInt(to.substring(colon + 1)) + 1000)
                .usePlaintext()
                .eventLoopGroup(loop)
                .channelType(NioSocketChannel.class)
                .directExecutor()
                .build();
        try {
            RequestGrpc.newFutureStub(next)
                    .withDeadlineAfter(10, TimeUnit.SECONDS)
                    .request(payload("ServerCheckRequest", "{\"headers\":{},\"module\":\"internal\"}"))
                    .get(15, TimeUnit.SECONDS);
            CountDownLatch ack = new CountDownLatch(1);
            StreamObserver<Payload>[] out = new StreamObserver[1];
            out[0] = BiRequestStreamGrpc.newStub(next).requestBiStream(new StreamObserver<>() {
                @Override
                public void onNext(Payload p) {
                    pushed(out[0], p, ack);
                }

                @Override
                public void onError(Throwable t) {
                    ended(next);
                }

                @Override
                public void onCompleted() {
                    ended(next);
                }
            });
            synchronized (out[0]) {
                out[0].onNext(payload(
                        "ConnectionSetupRequest",
                        "{\"headers\":{},\"clientVersion\":\"" + VERSION + "\",\"labels\":{\"source\":\"sdk\","
                                + "\"module\":\"naming\"},\"abilityTable\":{},\"module\":\"internal\"}"));
            }
            if (!ack.await(15, TimeUnit.SECONDS)) {
                throw new IllegalStateException("no SetupAckRequest from " + to + " within 15 s");
            }
            ManagedChannel old;
            synchronized (this) {
                if (closed) {
                    next.shutdownNow();
                    return;
                }
                old = channel;
                if (server != null) {
                    moves++;
                }
                channel = next;
                stream = out[0];
                server = to;
            }
            if (old != null) {
                old.shutdownNow(); // as the client does once connected elsewhere
            }
        } catch (Exception e) {
            next.shutdownNow();
            throw e;
        }
    }

    private void pushed(StreamObserver<Payload> out, Payload p, CountDownLatch ack) {
        String type = p.getMetadata().getType();
        if (type.equals("SetupAckRequest")) {
            ack.countDown();
            return;
        }
        JsonNode body;
        try {
            body = JSON.readTree(p.getBody().getValue().toString(StandardCharsets.UTF_8));
        } catch (Exception e) {
            return;
        }
        synchronized (out) {
            out.onNext(payload(
                    type.replace("Request", "Response"),
                    "{\"resultCode\":200,\"errorCode\":0,\"requestId\":\""
                            + body.path("requestId").asText() + "\"}"));
        }
        if (type.equals("ConnectResetRequest")) {
            String ip = body.path("serverIp").asText("");
            String port = body.path("serverPort").asText("");
            String named = ip.isEmpty() ? null : ip + ":" + port;
            tasks.execute(() -> moveTo(named, 0));
        }
    }

    /** The stream of {@code ended} closed: if it is still the current one, its server is gone. */
    private void ended(ManagedChannel ended) {
        synchronized (this) {
            if (closed || ended != channel) {
                return;
            }
        }
        tasks.schedule(() -> moveTo(null, 0), 200, TimeUnit.MILLISECONDS);
    }

    /** Connects to {@code named}, or to the next of its servers after the current one. */
    private void moveTo(String named, int attempt) {
        String to;
        synchronized (this) {
            if (closed) {
                return;
            }
            to = named != null ? named : servers.get((servers.indexOf(server) + 1 + attempt) % servers.size());
        }
        try {
            open(to);
        } catch (Exception e) {
            if (attempt < 50) {
                tasks.schedule(() -> moveTo(null, attempt + 1), 500, TimeUnit.MILLISECONDS);
            }
        }
    }

    @Override
    public void close() {
        ManagedChannel c;
        synchronized (this) {
            closed = true;
            c = channel;
        }
        if (c != null) {
            c.shutdownNow();
        }
    }

    private static Payload payload(String type, String json) {
        return Payload.newBuilder()
                .setMetadata(Metadata.newBuilder().setType(type).setClientIp("127.0.0.1"))
                .setBody(Any.newBuilder().setValue(ByteString.copyFromUtf8(json)))
                .build();
    }
}
