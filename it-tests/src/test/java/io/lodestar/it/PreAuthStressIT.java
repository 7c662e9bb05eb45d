package io.lodestar.it;

import static io.lodestar.it.Http.params;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.Any;
import com.google.protobuf.ByteString;
import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.MethodDescriptor;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.protobuf.ProtoUtils;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.StreamObserver;
import io.lodestar.api.grpc.wire.Metadata;
import io.lodestar.api.grpc.wire.Payload;
import io.lodestar.kv.testing.Await;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Everything a stranger can do before authenticating, at once, against a real server with auth on:
 * 500 slow HTTP bodies, 500 gRPC connections set up with oversized labels and left idle, a 100 MiB
 * chunked body, and a 100 MiB bolt frame on the Raft port. Meanwhile a logged-in client publishes
 * and reads configs, answered within 1 s at p99, and the node's resident memory stays bounded.
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class PreAuthStressIT {
    private static final int SLOW_BODIES = 500;
    private static final int GRPC_CONNECTIONS = 500;
    private static final int HUNDRED_MIB = 100 << 20;
    private static final Duration LOAD = Duration.ofSeconds(20);
    /**
     * The server runs with -Xmx256m; this leaves room for metaspace, RocksDB, Netty's buffers and
     * the threads the slow bodies hold. A coarse guard only: the frame and body bounds have tests
     * of their own that fail when one is held.
     */
    private static final long RSS_BOUND_MIB = 768;

    @RegisterExtension
    final LodestarCluster cluster = new LodestarCluster();

    private final List<AutoCloseable> open = Collections.synchronizedList(new ArrayList<>());
    private final AtomicBoolean attacking = new AtomicBoolean(true);
    private final ExecutorService attackers = Executors.newCachedThreadPool();
    /** How each oversized gRPC setup's stream ended. */
    private final ConcurrentLinkedQueue<String> setupEnds = new ConcurrentLinkedQueue<>();

    @AfterEach
    void stopAttacks() throws Exception {
        attacking.set(false);
        attackers.shutdownNow();
        for (AutoCloseable c : open) {
            try {
                c.close();
            } catch (Exception ignored) {
                // closing what the server may have closed already
            }
        }
    }

    @Test
    void aLoggedInClientIsServedWhileStrangersDoTheirWorst() throws Exception {
        ServerProcess p = cluster.standalone("stress", "--auth", "on").start();
        p.awaitReady();
        String token = login(p);
        int httpPort = Integer.parseInt(p.httpAddress().split(":")[1]);
        int grpcPort = httpPort + ServerProcess.GRPC_OFFSET;
        int raftPort = Integer.parseInt(p.raftAddress().split(":")[1]);

        long baselineMib = rssKib(p.pid()) / 1024;
        AtomicLong peakRssKib = new AtomicLong(baselineMib * 1024);
        attackers.submit(() -> {
            while (attacking.get()) {
                peakRssKib.accumulateAndGet(rssKib(p.pid()), Math::max);
                Thread.sleep(200);
            }
            return null;
        });
        attackers.submit(() -> slowBodies(httpPort));
        attackers.submit(() -> oversizedGrpcSetups(grpcPort));
        CompletableFuture<String> chunkedAnswer = new CompletableFuture<>();
        attackers.submit(() -> hundredMibChunked(httpPort, chunkedAnswer));
        AtomicLong boltSent = new AtomicLong();
        attackers.submit(() -> hundredMibBoltFrame(raftPort, boltSent));

        List<Long> millis = new ArrayList<>();
        long end = System.nanoTime() + LOAD.toNanos();
        for (int i = 0; System.nanoTime() < end; i++) {
            String content = "value-" + i;
            long t0 = System.nanoTime();
            Http.Response put = Http.postForm(
                    p.httpAddress(),
                    "/nacos/v1/cs/configs?accessToken=" + token,
                    params("dataId", "d" + (i % 20), "group", "G", "content", content),
                    Duration.ofSeconds(10));
            assertEquals(200, put.status(), put.body());
            Http.Response get = Http.get(
                    p.httpAddress(),
                    "/nacos/v1/cs/configs?dataId=d" + (i % 20) + "&group=G&accessToken=" + token,
                    Duration.ofSeconds(10));
            assertEquals(200, get.status(), get.body());
            assertEquals(content, get.body());
            millis.add((System.nanoTime() - t0) / 1_000_000);
        }
        Collections.sort(millis);
        long p99 = millis.get((int) Math.ceil(millis.size() * 0.99) - 1);
        long peakMib = peakRssKib.get() / 1024;
        String figures = millis.size() + " publish+get pairs, p50 " + millis.get(millis.size() / 2) + " ms, p99 "
                + p99 + " ms, max " + millis.get(millis.size() - 1) + " ms; peak RSS " + peakMib
                + " MiB (" + baselineMib + " MiB before); the chunked body answered " + chunkedAnswer.getNow(null)
                + ", bolt frame sent "
                + (boltSent.get() >> 20) + " MiB";
        System.out.println("PreAuthStressIT: " + figures);
        assertTrue(p99 < 1000, figures);
        assertTrue(peakMib < RSS_BOUND_MIB, figures);
        assertTrue(String.valueOf(chunkedAnswer.getNow(null)).startsWith("HTTP/1.1 413"), figures);
        assertTrue(boltSent.get() < HUNDRED_MIB, "the bolt frame was read whole: " + figures);
        Await.until(
                Duration.ofSeconds(60),
                "every oversized setup refused",
                () -> setupEnds.size() == GRPC_CONNECTIONS,
                () -> setupEnds.size() + " ended");
        assertTrue(
                setupEnds.stream()
                        .allMatch(e -> e.contains("RESOURCE_EXHAUSTED") && e.contains("grpc.setup-label-bytes")),
                String.valueOf(setupEnds.peek()));
        assertTrue(p.alive());
    }

    /** Bodies promised at 10,000 bytes and sent a byte every second, two from each of 250 addresses. */
    private Void slowBodies(int port) throws Exception {
        List<Socket> sockets = new ArrayList<>();
        for (int i = 0; i < SLOW_BODIES && attacking.get(); i++) {
            try {
                Socket s = connect("127.0.1." + (1 + i / 2), port);
                s.getOutputStream()
                        .write(("POST /nacos/v1/cs/configs HTTP/1.1\r\nHost: x\r\n"
                                        + "Content-Type: application/x-www-form-urlencoded\r\nContent-Length: 10000"
                                        + "\r\n\r\nd")
                                .getBytes(StandardCharsets.ISO_8859_1));
                sockets.add(s);
            } catch (IOException refused) {
                // a limit closed it: that is the server defending itself
            }
        }
        while (attacking.get()) {
            for (Socket s : sockets) {
                try {
                    s.getOutputStream().write('a');
                } catch (IOException closed) {
                    // cut off for its rate
                }
            }
            Thread.sleep(1000);
        }
        return null;
    }

    /** Connections set up with 256 KiB of labels each (16 times the limit), then left idle. */
    private Void oversizedGrpcSetups(int port) {
        MethodDescriptor<Payload, Payload> stream = MethodDescriptor.<Payload, Payload>newBuilder()
                .setType(MethodDescriptor.MethodType.BIDI_STREAMING)
                .setFullMethodName("BiRequestStream/requestBiStream")
                .setRequestMarshaller(ProtoUtils.marshaller(Payload.getDefaultInstance()))
                .setResponseMarshaller(ProtoUtils.marshaller(Payload.getDefaultInstance()))
                .build();
        String setup = "{\"clientVersion\":\"stress\",\"labels\":{\"big\":\"" + "x".repeat(256 << 10)
                + "\"},\"abilityTable\":{},\"module\":\"internal\"}";
        Payload payload = Payload.newBuilder()
                .setMetadata(Metadata.newBuilder().setType("ConnectionSetupRequest"))
                .setBody(Any.newBuilder().setValue(ByteString.copyFromUtf8(setup)))
                .build();
        for (int i = 0; i < GRPC_CONNECTIONS && attacking.get(); i++) {
            ManagedChannel channel = NettyChannelBuilder.forAddress("127.0.0.1", port)
                    .usePlaintext()
                    .build();
            open.add(channel::shutdownNow);
            StreamObserver<Payload> toServer = ClientCalls.asyncBidiStreamingCall(
                    channel.newCall(stream, CallOptions.DEFAULT), new StreamObserver<>() {
                        @Override
                        public void onNext(Payload value) {}

                        @Override
                        public void onError(Throwable t) {
                            setupEnds.add(t.toString());
                        }

                        @Override
                        public void onCompleted() {
                            setupEnds.add("completed");
                        }
                    });
            toServer.onNext(payload);
        }
        return null;
    }

    /**
     * A chunked body of 100 MiB to the login route, which reads its form before any token exists;
     * completes {@code answer} with the status line it gets, or with how reading it failed. (The
     * node goes on reading and discarding what arrives after its answer until the client closes:
     * Jetty closes gracefully, so its answer is not lost to a reset. Nothing of it is held.) The
     * socket stays open until the answer is read: closing it when the write fails would race the
     * reader.
     */
    private Void hundredMibChunked(int port, CompletableFuture<String> answer) throws Exception {
        try (Socket s = connect("127.0.2.1", port)) {
            attackers.submit(() -> answer.complete(statusLine(s)));
            long sent = 0;
            try {
                OutputStream out = s.getOutputStream();
                out.write(("POST /nacos/v1/auth/users/login HTTP/1.1\r\nHost: x\r\n"
                                + "Content-Type: application/x-www-form-urlencoded\r\nTransfer-Encoding: chunked\r\n\r\n")
                        .getBytes(StandardCharsets.ISO_8859_1));
                byte[] chunk = ("10000\r\n" + "a".repeat(0x10000) + "\r\n").getBytes(StandardCharsets.ISO_8859_1);
                while (sent < HUNDRED_MIB && attacking.get()) {
                    out.write(chunk);
                    sent += chunk.length;
                }
            } catch (IOException closed) {
                // the node closed it past the body limit
            }
            Await.until(Duration.ofSeconds(30), "the chunked body's answer", answer::isDone, () -> "none");
        }
        return null;
    }

    private static String statusLine(Socket s) {
        try {
            return new BufferedReader(new InputStreamReader(s.getInputStream(), StandardCharsets.ISO_8859_1))
                    .readLine();
        } catch (IOException e) {
            return "reading the answer failed: " + e;
        }
    }

    /** A bolt request declaring 100 MiB of content, sent to the Raft port without a handshake. */
    private Void hundredMibBoltFrame(int port, AtomicLong sent) throws Exception {
        try (Socket s = connect("127.0.3.1", port)) {
            OutputStream out = s.getOutputStream();
            out.write(ByteBuffer.allocate(24)
                    .put((byte) 2)
                    .put((byte) 1)
                    .put((byte) 1)
                    .putShort((short) 1)
                    .put((byte) 1)
                    .putInt(1)
                    .put((byte) 1)
                    .put((byte) 0)
                    .putInt(3000)
                    .putShort((short) 0)
                    .putShort((short) 0)
                    .putInt(HUNDRED_MIB)
                    .array());
            byte[] chunk = new byte[64 << 10];
            while (sent.get() < HUNDRED_MIB && attacking.get()) {
                out.write(chunk);
                sent.addAndGet(chunk.length);
            }
        } catch (IOException closed) {
            // the node closed it at the header
        }
        return null;
    }

    private Socket connect(String from, int port) throws IOException {
        Socket s = new Socket();
        open.add(s);
        s.bind(new InetSocketAddress(from, 0));
        s.connect(new InetSocketAddress("127.0.0.1", port), 5000);
        return s;
    }

    private static String login(ServerProcess p) throws Exception {
        Path file = p.dataDir.resolve("initial-admin-password");
        String password = Await.result(
                Duration.ofSeconds(30),
                "the admin's password file",
                () -> Files.exists(file) ? Files.readString(file).trim() : null);
        Http.Response r = Http.postForm(
                p.httpAddress(), "/nacos/v1/auth/users/login", params("username", "nacos", "password", password));
        assertEquals(200, r.status(), r.body());
        return Http.JSON.readTree(r.body()).get("accessToken").asText();
    }

    private static long rssKib(long pid) throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc/" + pid + "/status"))) {
            if (line.startsWith("VmRSS:")) {
                return Long.parseLong(line.replaceAll("[^0-9]", ""));
            }
        }
        return 0;
    }
}
