package io.lodestar.it.bench;

/*
 * ConfigListenBench: how fast Lodestar tells a client that a config changed, and what holding many
 * listeners costs it.
 *
 * Needs nothing but the JDK (17+); the build compiles it, it-tests/bench/run.sh runs it:
 *
 *   it-tests/bench/run.sh ConfigListenBench --addr 127.0.0.1:8848 --scenario all
 *   it-tests/bench/run.sh ConfigListenBench --scenario held-long-polls --polls 10000 --server-pid 1234
 *   it-tests/bench/run.sh ConfigListenBench --help
 *
 * Every scenario prints exactly one JSON line on stdout:
 *
 *   {"scenario":"push-notify-latency","rounds":200,"errors":0,"p50_ms":1.874,"p99_ms":6.102,"max_ms":9.337,...}
 *
 * Diagnostics (the first few failures of each scenario, progress notes) go to stderr, so stdout can be
 * piped straight into a results file. The exit code is 1 if a scenario could not run or counted errors.
 *
 * Scenarios
 *   push-notify-latency       one WebSocket on /lodestar/v1/push subscribed to one fresh key; --rounds
 *                             sequential rounds of "wait --settle-ms, publish a new content, time until the
 *                             'changed' notice carrying the new content's md5 has arrived".
 *   long-poll-notify-latency  the same rounds over the Nacos long-poll (POST /nacos/v1/cs/configs/listener,
 *                             Long-Pulling-Timeout 30000): arm a poll with the current md5, wait --settle-ms,
 *                             publish, time until the poll's answer naming the key has arrived.
 *   held-long-polls           --polls concurrent long-polls on one key, one TCP connection each, driven by
 *                             one NIO selector; waits until the server reports them all held
 *                             (GET /lodestar/v1/config/listeners), reads the server's RSS (--server-pid),
 *                             publishes once and times the fan-out: publish start to each poll's answer.
 *
 * Latency is always publish-start (System.nanoTime() just before the publish request is sent) to
 * notice-received (the whole notice or HTTP answer has been read), as NacosBench's config-notify-latency.
 * Percentiles are exact (every sample is kept; nearest rank) and are over successful rounds only. The
 * two latency scenarios first run --warmup-rounds unrecorded rounds (checked like the others; their
 * failures count as errors), as wrk-bench.sh warms every scenario up: in the first push run after the
 * wrk runs the server's JIT compiler threads took 460 ms of CPU within 6 s (30 ms by the third run), and
 * p99 fell with it (7.9, 5.3, 4.4 ms).
 * A round whose notice has not arrived 5 s after the publish started counts as missing.
 *
 * Side effects on the server under test (use a scratch server): every run publishes the configs
 * bench-push-<runId>, bench-lp-<runId> and bench-held-<runId> (group DEFAULT_GROUP, public namespace)
 * and leaves them in place, with one history entry per round.
 *
 * The client shares the machine with the server when both run on one host; its own CPU use (one
 * selector thread reading 10,000 answers, the JDK WebSocket and HttpClient) is part of what the numbers
 * measure.
 */

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

public final class ConfigListenBench {

    /** Scenario names in the order "--scenario all" runs them. */
    static final List<String> ALL_SCENARIOS =
            List.of("push-notify-latency", "long-poll-notify-latency", "held-long-polls");

    static final String GROUP = "DEFAULT_GROUP";
    static final String CONFIGS = "/nacos/v1/cs/configs";
    static final String LISTENER = "/nacos/v1/cs/configs/listener";
    static final String HELD = "/lodestar/v1/config/listeners";
    static final String PUSH = "/lodestar/v1/push";
    /** A round whose notice has not arrived this long after the publish started counts as missing. */
    static final long NOTICE_TIMEOUT_MS = 5_000;
    /** Long-Pulling-Timeout of long-poll-notify-latency (as the Nacos 1.x client). */
    static final int LATENCY_POLL_TIMEOUT_MS = 30_000;
    /** Long-Pulling-Timeout of held-long-polls: the server holds them 59.5 s. */
    static final int HELD_POLL_TIMEOUT_MS = 60_000;
    /** held-long-polls waits at most this long for a batch to be connected and held before opening the next. */
    static final long CONNECT_BATCH_WAIT_MS = 10_000;
    /** held-long-polls: how long to wait for the server to report every poll held. */
    static final long HELD_DEADLINE_MS = 60_000;
    /** held-long-polls: how long after the publish a poll may take to answer before it counts as failed. */
    static final long FANOUT_DEADLINE_MS = 30_000;
    /** File descriptors the client needs besides one per poll (JDK, selector, HttpClient). */
    static final int SPARE_FDS = 64;

    static final long PAUSE_BETWEEN_SCENARIOS_MS = 2000;
    static final int ERRORS_TO_SHOW = 5;

    public static void main(String[] args) throws Exception {
        Options opt;
        try {
            opt = Options.parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println("error: " + e.getMessage());
            System.err.println(Options.USAGE);
            System.exit(2);
            return;
        }
        if (opt == null) { // --help
            System.out.println(Options.USAGE);
            return;
        }
        System.exit(new ConfigListenBench(opt).runAll());
    }

    // ------------------------------------------------------------------------------------------------
    // Driver
    // ------------------------------------------------------------------------------------------------

    private final Options opt;
    private final Http http;
    /** Distinguishes the keys of this invocation from those of earlier runs against the same server. */
    private final String runId = Long.toString(System.currentTimeMillis(), 36);

    ConfigListenBench(Options opt) {
        this.opt = opt;
        this.http = new Http(opt.addr);
    }

    /** Runs the selected scenarios; returns the process exit code (1 if one could not run or counted errors). */
    int runAll() throws InterruptedException {
        int exitCode = 0;
        List<String> names = opt.scenarios();
        for (int i = 0; i < names.size(); i++) {
            if (i > 0) {
                Thread.sleep(PAUSE_BETWEEN_SCENARIOS_MS);
            }
            String name = names.get(i);
            try {
                Result r = runScenario(name);
                System.out.println(r.toJson());
                System.out.flush();
                if (r.errors > 0) {
                    exitCode = 1;
                }
            } catch (Exception e) {
                note(name, "could not run: " + describe(e));
                exitCode = 1;
            }
        }
        return exitCode;
    }

    Result runScenario(String name) throws Exception {
        switch (name) {
            case "push-notify-latency":
                return runPushLatency(name, "bench-push-" + runId);
            case "long-poll-notify-latency":
                return runLongPollLatency(name, "bench-lp-" + runId);
            case "held-long-polls":
                return runHeldLongPolls(name, "bench-held-" + runId);
            default:
                throw new IllegalArgumentException("unknown scenario " + name);
        }
    }

    /** The content of one round: unique per run and round, so its md5 identifies the round. */
    private String contentOf(String dataId, int round) {
        return "bench.key=" + dataId + "\nround=" + round + "\n";
    }

    // ------------------------------------------------------------------------------------------------
    // push-notify-latency
    // ------------------------------------------------------------------------------------------------

    /** A message received on the push channel, with its arrival time. */
    record PushMessage(long receivedAt, String text) {
        String field(String name) {
            return jsonField(text, name);
        }

        String type() {
            String t = field("type");
            return t == null ? "" : t;
        }

        long revision() {
            String r = field("revision");
            try {
                return r == null ? -1 : Long.parseLong(r);
            } catch (NumberFormatException e) {
                return -1;
            }
        }
    }

    /**
     * Sequential rounds over one WebSocket subscribed to one key: wait --settle-ms, publish a new
     * content, time from the start of the publish until the "changed" notice with its md5 has arrived.
     */
    private Result runPushLatency(String name, String dataId) throws Exception {
        ErrorLog errorLog = new ErrorLog(name);
        PushClient ws = PushClient.connect(URI.create("ws://" + opt.addr + PUSH));
        try {
            ws.send("{\"type\":\"subscribe\",\"keys\":[{\"dataId\":\"" + dataId + "\",\"group\":\"" + GROUP
                    + "\",\"tenant\":\"\"}]}");
            PushMessage subscribed = ws.take(Duration.ofSeconds(10));
            if (subscribed == null || !subscribed.type().equals("subscribed")) {
                throw new IllegalStateException("expected {\"type\":\"subscribed\",...} within 10 s, got "
                        + (subscribed == null ? "nothing" : abbreviate(subscribed.text())));
            }
            PushTally tally = new PushTally(dataId, subscribed.revision(), errorLog);
            note(name, "subscribed to " + dataId + " at revision " + tally.lastRevision);

            LongList latencies = new LongList();
            LongList publishTimes = new LongList();
            long publishFailures = 0;
            for (int round = 0; round < opt.warmupRounds + opt.rounds; round++) {
                boolean recorded = round >= opt.warmupRounds;
                Thread.sleep(opt.settleMs);
                PushMessage m;
                while ((m = ws.poll()) != null) { // what arrived during the settle: late or duplicate notices
                    tally.stray(m);
                }
                String next = contentOf(dataId, round);
                String md5 = md5Hex(next);
                tally.published.add(md5);
                long t0 = System.nanoTime();
                String failure;
                try {
                    failure = http.publish(dataId, next);
                } catch (IOException e) {
                    failure = describe(e);
                }
                if (recorded) {
                    publishTimes.add(System.nanoTime() - t0);
                }
                if (failure != null) {
                    publishFailures++;
                    errorLog.report("round " + round + ": publish failed: " + failure);
                    continue;
                }
                long deadline = t0 + TimeUnit.MILLISECONDS.toNanos(NOTICE_TIMEOUT_MS);
                boolean got = false;
                while (!got) {
                    long left = deadline - System.nanoTime();
                    m = left > 0 ? ws.poll(left) : null;
                    if (m == null) {
                        tally.missing++;
                        errorLog.report("round " + round + ": no notice with md5 " + md5 + " within "
                                + NOTICE_TIMEOUT_MS + " ms of the publish");
                        break;
                    }
                    if (tally.isExpected(m, md5)) {
                        if (recorded) {
                            latencies.add(m.receivedAt() - t0);
                        }
                        tally.accept(m);
                        got = true;
                    } else {
                        tally.stray(m);
                    }
                }
            }
            // Barrier: notices sent before the pong are in the queue once it arrives; duplicates of the
            // last round show up here.
            Thread.sleep(opt.settleMs);
            ws.send("{\"type\":\"ping\"}");
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            boolean pong = false;
            while (!pong) {
                long left = deadline - System.nanoTime();
                PushMessage m = left > 0 ? ws.poll(left) : null;
                if (m == null) {
                    throw new IllegalStateException("no pong within 5 s of a ping");
                }
                if (m.type().equals("pong")) {
                    pong = true;
                } else {
                    tally.stray(m);
                }
            }
            long errors = tally.missing + tally.duplicates + tally.mismatches + tally.others + publishFailures;
            return latencyResult(name, latencies, publishTimes, errors)
                    .with("missing", tally.missing)
                    .with("late", tally.late)
                    .with("duplicates", tally.duplicates)
                    .with("md5_mismatches", tally.mismatches)
                    .with("publish_failures", publishFailures);
        } finally {
            ws.close();
        }
    }

    /** Classifies push messages for one key: expected, late (after its round timed out), duplicate, wrong. */
    static final class PushTally {
        final String dataId;
        final ErrorLog errorLog;
        /** md5s of every content published so far. */
        final Set<String> published = new HashSet<>();
        /** md5s of which a notice has been received. */
        final Set<String> delivered = new HashSet<>();

        long lastRevision;
        long missing;
        long late;
        long duplicates;
        long mismatches;
        long others;

        PushTally(String dataId, long subscribedRevision, ErrorLog errorLog) {
            this.dataId = dataId;
            this.lastRevision = subscribedRevision;
            this.errorLog = errorLog;
        }

        boolean isOurChange(PushMessage m) {
            return m.type().equals("changed") && dataId.equals(m.field("dataId")) && GROUP.equals(m.field("group"));
        }

        boolean isExpected(PushMessage m, String md5) {
            return isOurChange(m)
                    && md5.equals(m.field("md5"))
                    && m.revision() > lastRevision
                    && !delivered.contains(md5);
        }

        void accept(PushMessage m) {
            lastRevision = m.revision();
            delivered.add(m.field("md5"));
        }

        /** A message that is not the notice the current round waits for. */
        void stray(PushMessage m) {
            if (m.type().equals("closed")) {
                throw new IllegalStateException("push connection closed: " + m.text());
            }
            if (!isOurChange(m)) {
                others++;
                errorLog.report("unexpected message: " + abbreviate(m.text()));
                return;
            }
            String md5 = m.field("md5");
            if (m.revision() <= lastRevision || delivered.contains(md5)) {
                duplicates++;
                errorLog.report("duplicate or out-of-order notice (last revision " + lastRevision + "): "
                        + abbreviate(m.text()));
            } else if (published.contains(md5)) {
                late++; // its round already counted it as missing
                accept(m);
                note(errorLog.scenario, "late notice: " + abbreviate(m.text()));
            } else {
                mismatches++;
                errorLog.report("notice with an md5 of no published content: " + abbreviate(m.text()));
            }
        }
    }

    /**
     * A minimal WebSocket client (RFC 6455 over a blocking socket) that queues every complete text
     * message with its arrival time, stamped by the reading thread as the frame's last byte is read.
     * Not the JDK's java.net.http.WebSocket: that one hands each message across its selector and
     * executor threads, which on this project's 2-core machines cost more than the server's whole
     * notify path (measured side by side in it-tests/bench/RESULTS.md).
     */
    static final class PushClient {
        private static final String GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";
        private final BlockingQueue<PushMessage> queue = new LinkedBlockingQueue<>();
        private final java.net.Socket socket;
        private final java.io.InputStream in;
        private final java.io.OutputStream out;
        private final java.util.Random random = new java.util.Random();

        private PushClient(java.net.Socket socket, java.io.InputStream in) throws IOException {
            this.socket = socket;
            this.in = in;
            this.out = socket.getOutputStream();
        }

        static PushClient connect(URI uri) throws Exception {
            java.net.Socket socket = new java.net.Socket();
            socket.connect(new InetSocketAddress(uri.getHost(), uri.getPort()), 5_000);
            socket.setTcpNoDelay(true);
            byte[] nonce = new byte[16];
            new java.security.SecureRandom().nextBytes(nonce);
            String key = java.util.Base64.getEncoder().encodeToString(nonce);
            String path = uri.getRawPath() + (uri.getRawQuery() == null ? "" : "?" + uri.getRawQuery());
            socket.getOutputStream()
                    .write(("GET " + path + " HTTP/1.1\r\nHost: " + uri.getHost() + ":" + uri.getPort()
                                    + "\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: " + key
                                    + "\r\nSec-WebSocket-Version: 13\r\n\r\n")
                            .getBytes(StandardCharsets.US_ASCII));
            java.io.InputStream in = new java.io.BufferedInputStream(socket.getInputStream());
            socket.setSoTimeout(10_000);
            RawHttp.Head head = RawHttp.readHead(in);
            String accept = java.util.Base64.getEncoder()
                    .encodeToString(MessageDigest.getInstance("SHA-1")
                            .digest((key + GUID).getBytes(StandardCharsets.US_ASCII)));
            if (head.status() != 101 || !accept.equals(head.headers().get("sec-websocket-accept"))) {
                socket.close();
                throw new IOException("WebSocket handshake refused: HTTP " + head.status() + " " + head.headers());
            }
            socket.setSoTimeout(0);
            PushClient c = new PushClient(socket, in);
            Thread reader = new Thread(c::readLoop, "push-reader");
            reader.setDaemon(true);
            reader.start();
            return c;
        }

        void send(String text) throws IOException {
            sendFrame(0x1, text.getBytes(StandardCharsets.UTF_8));
        }

        PushMessage poll() {
            return queue.poll();
        }

        PushMessage poll(long nanos) throws InterruptedException {
            return queue.poll(nanos, TimeUnit.NANOSECONDS);
        }

        PushMessage take(Duration limit) throws InterruptedException {
            return queue.poll(limit.toNanos(), TimeUnit.NANOSECONDS);
        }

        void close() {
            try {
                sendFrame(0x8, new byte[] {0x03, (byte) 0xe8}); // 1000, normal closure
            } catch (IOException ignored) {
                // closing anyway
            }
            try {
                socket.close();
            } catch (IOException ignored) {
                // nothing left to do
            }
        }

        /** A client frame: always masked (RFC 6455 section 5.3), never fragmented. */
        private synchronized void sendFrame(int opcode, byte[] payload) throws IOException {
            java.io.ByteArrayOutputStream frame = new java.io.ByteArrayOutputStream(payload.length + 14);
            frame.write(0x80 | opcode);
            if (payload.length < 126) {
                frame.write(0x80 | payload.length);
            } else if (payload.length <= 0xffff) {
                frame.write(0x80 | 126);
                frame.write(payload.length >>> 8);
                frame.write(payload.length);
            } else {
                frame.write(0x80 | 127);
                for (int shift = 56; shift >= 0; shift -= 8) {
                    frame.write((int) ((long) payload.length >>> shift));
                }
            }
            byte[] mask = new byte[4];
            random.nextBytes(mask);
            frame.write(mask, 0, 4);
            for (int i = 0; i < payload.length; i++) {
                frame.write(payload[i] ^ mask[i & 3]);
            }
            out.write(frame.toByteArray());
            out.flush();
        }

        private void readLoop() {
            java.io.ByteArrayOutputStream message = new java.io.ByteArrayOutputStream();
            try {
                while (true) {
                    int b0 = readByte();
                    int b1 = readByte();
                    long length = b1 & 0x7f;
                    if (length == 126) {
                        length = (readByte() << 8) | readByte();
                    } else if (length == 127) {
                        length = 0;
                        for (int i = 0; i < 8; i++) {
                            length = (length << 8) | readByte();
                        }
                    }
                    if ((b1 & 0x80) != 0 || length > (16 << 20)) {
                        throw new IOException("server frame masked or over 16 MiB");
                    }
                    byte[] payload = in.readNBytes((int) length);
                    if (payload.length != length) {
                        throw new java.io.EOFException("connection closed inside a frame");
                    }
                    long now = System.nanoTime();
                    int opcode = b0 & 0x0f;
                    if (opcode == 0x9) {
                        sendFrame(0xA, payload);
                    } else if (opcode == 0x8) {
                        int code = payload.length >= 2 ? ((payload[0] & 0xff) << 8) | (payload[1] & 0xff) : 1005;
                        String reason = new String(
                                payload,
                                Math.min(2, payload.length),
                                Math.max(0, payload.length - 2),
                                StandardCharsets.UTF_8);
                        queue.add(new PushMessage(
                                now, "{\"type\":\"closed\",\"code\":" + code + ",\"reason\":\"" + reason + "\"}"));
                        return;
                    } else if (opcode == 0x1 || opcode == 0x0) {
                        message.write(payload, 0, payload.length);
                        if ((b0 & 0x80) != 0) {
                            queue.add(new PushMessage(now, message.toString(StandardCharsets.UTF_8)));
                            message.reset();
                        }
                    }
                }
            } catch (IOException e) {
                queue.add(
                        new PushMessage(System.nanoTime(), "{\"type\":\"closed\",\"reason\":\"" + describe(e) + "\"}"));
            }
        }

        private int readByte() throws IOException {
            int b = in.read();
            if (b < 0) {
                throw new java.io.EOFException("connection closed");
            }
            return b;
        }
    }

    /**
     * HTTP/1.1 over one kept-alive blocking socket, for the publishes the latency scenarios time: a
     * request is written and its answer read on the calling thread, with no client threads between
     * (java.net.http's HttpClient added about 1.5 ms to a publish's median here).
     */
    static final class RawHttp {
        record Head(int status, Map<String, String> headers) {}

        private final String host;
        private final int port;
        private java.net.Socket socket;
        private java.io.InputStream in;

        RawHttp(String addr) {
            int colon = addr.lastIndexOf(':');
            this.host = addr.substring(0, colon);
            this.port = Integer.parseInt(addr.substring(colon + 1));
        }

        /** POSTs a form; opens (again) the connection when there is none or the server closed it. */
        synchronized Response postForm(String path, String form) throws IOException {
            byte[] body = form.getBytes(StandardCharsets.UTF_8);
            byte[] head = ("POST " + path + " HTTP/1.1\r\nHost: " + host + ":" + port
                            + "\r\nContent-Type: application/x-www-form-urlencoded;charset=UTF-8\r\nContent-Length: "
                            + body.length + "\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII);
            for (int attempt = 0; ; attempt++) {
                boolean reused = socket != null;
                try {
                    if (socket == null) {
                        socket = new java.net.Socket();
                        socket.connect(new InetSocketAddress(host, port), 5_000);
                        socket.setTcpNoDelay(true);
                        socket.setSoTimeout(10_000);
                        in = new java.io.BufferedInputStream(socket.getInputStream());
                    }
                    java.io.OutputStream out = socket.getOutputStream();
                    out.write(head);
                    out.write(body);
                    out.flush();
                    Head h = readHead(in);
                    byte[] content = readBody(in, h.headers());
                    if ("close".equalsIgnoreCase(h.headers().get("connection"))) {
                        closeQuietly();
                    }
                    return new Response(h.status(), new String(content, StandardCharsets.UTF_8));
                } catch (IOException e) {
                    closeQuietly();
                    if (!reused || attempt > 0) { // a kept-alive connection the server dropped is retried once
                        throw e;
                    }
                }
            }
        }

        private void closeQuietly() {
            try {
                if (socket != null) {
                    socket.close();
                }
            } catch (IOException ignored) {
                // dropping it either way
            }
            socket = null;
        }

        static Head readHead(java.io.InputStream in) throws IOException {
            String status = readLine(in);
            String[] parts = status.split(" ", 3);
            if (parts.length < 2 || !parts[0].startsWith("HTTP/")) {
                throw new IOException("not an HTTP answer: " + abbreviate(status));
            }
            Map<String, String> headers = new LinkedHashMap<>();
            for (String line = readLine(in); !line.isEmpty(); line = readLine(in)) {
                int colon = line.indexOf(':');
                if (colon > 0) {
                    headers.put(
                            line.substring(0, colon).trim().toLowerCase(Locale.ROOT),
                            line.substring(colon + 1).trim());
                }
            }
            return new Head(Integer.parseInt(parts[1]), headers);
        }

        private static byte[] readBody(java.io.InputStream in, Map<String, String> headers) throws IOException {
            if ("chunked".equalsIgnoreCase(headers.get("transfer-encoding"))) {
                java.io.ByteArrayOutputStream body = new java.io.ByteArrayOutputStream();
                for (int size = Integer.parseInt(readLine(in).split(";")[0].trim(), 16);
                        size > 0;
                        size = Integer.parseInt(readLine(in).split(";")[0].trim(), 16)) {
                    body.write(readExactly(in, size));
                    readLine(in);
                }
                while (!readLine(in).isEmpty()) {
                    // trailers
                }
                return body.toByteArray();
            }
            String length = headers.get("content-length");
            return length == null ? new byte[0] : readExactly(in, Integer.parseInt(length));
        }

        private static byte[] readExactly(java.io.InputStream in, int n) throws IOException {
            byte[] b = in.readNBytes(n);
            if (b.length != n) {
                throw new java.io.EOFException("connection closed inside an answer");
            }
            return b;
        }

        private static String readLine(java.io.InputStream in) throws IOException {
            StringBuilder line = new StringBuilder();
            for (int c = in.read(); c != '\n'; c = in.read()) {
                if (c < 0) {
                    throw new java.io.EOFException("connection closed");
                }
                if (c != '\r') {
                    line.append((char) c);
                }
            }
            return line.toString();
        }
    }

    // ------------------------------------------------------------------------------------------------
    // long-poll-notify-latency
    // ------------------------------------------------------------------------------------------------

    /**
     * Sequential rounds of: arm a long-poll with the md5 of the current content, wait --settle-ms, publish
     * a new content, time from the start of the publish until the poll's answer has arrived.
     */
    private Result runLongPollLatency(String name, String dataId) throws Exception {
        ErrorLog errorLog = new ErrorLog(name);
        String current = contentOf(dataId, -1);
        require("initial publish", http.publish(dataId, current));
        http.awaitConfig(dataId, current, Duration.ofSeconds(30));
        String changedKey = URLEncoder.encode(dataId + '\u0002' + GROUP + '\u0001', StandardCharsets.UTF_8);

        LongList latencies = new LongList();
        LongList publishTimes = new LongList();
        long missing = 0;
        long errors = 0;
        for (int round = 0; round < opt.warmupRounds + opt.rounds; round++) {
            boolean recorded = round >= opt.warmupRounds;
            AtomicLong answeredAt = new AtomicLong();
            CompletableFuture<Response> poll = http.listenAsync(dataId, md5Hex(current), LATENCY_POLL_TIMEOUT_MS)
                    .whenComplete((r, e) -> answeredAt.set(System.nanoTime()));
            Thread.sleep(opt.settleMs);
            String failure = null;
            if (poll.isDone()) {
                failure = "poll answered before the publish: " + outcome(poll);
            } else {
                String next = contentOf(dataId, round);
                long t0 = System.nanoTime();
                try {
                    failure = http.publish(dataId, next);
                    if (failure != null) {
                        failure = "publish failed: " + failure;
                    }
                } catch (IOException e) {
                    failure = "publish failed: " + describe(e);
                }
                if (recorded) {
                    publishTimes.add(System.nanoTime() - t0);
                }
                current = next;
                if (failure == null) {
                    long left = TimeUnit.NANOSECONDS.toMillis(t0 - System.nanoTime()) + NOTICE_TIMEOUT_MS;
                    try {
                        Response r = poll.get(Math.max(1, left), TimeUnit.MILLISECONDS);
                        if (r.status() != 200) {
                            failure = "poll answered HTTP " + r.status() + ": " + abbreviate(r.body());
                        } else if (!r.body().contains(changedKey)) {
                            failure = "poll answered without the key: " + abbreviate(r.body());
                        } else if (recorded) {
                            latencies.add(answeredAt.get() - t0);
                        }
                    } catch (TimeoutException e) {
                        missing++;
                        failure = "no answer within " + NOTICE_TIMEOUT_MS + " ms of the publish";
                    } catch (ExecutionException e) {
                        failure = "poll failed: " + describe(e.getCause());
                    }
                }
            }
            if (failure != null) {
                errors++;
                errorLog.report("round " + round + ": " + failure);
                poll.cancel(true);
                // start the next round from a known state: the server serves what we last published
                http.awaitConfig(dataId, current, Duration.ofSeconds(30));
            }
        }
        return latencyResult(name, latencies, publishTimes, errors).with("missing", missing);
    }

    /**
     * The result line of a latency scenario. publish_*_ms is the publish request's own round trip (it
     * includes the Raft commit): a notice may arrive before it, so the two overlap rather than add up.
     */
    private Result latencyResult(String name, LongList latencies, LongList publishTimes, long errors) {
        long[] sorted = latencies.toSortedArray();
        long[] publish = publishTimes.toSortedArray();
        return new Result(name, errors)
                .with("rounds", opt.rounds)
                .with("warmup_rounds", opt.warmupRounds)
                .with("errors", errors)
                .with("p50_ms", ms(percentile(sorted, 50)))
                .with("p99_ms", ms(percentile(sorted, 99)))
                .with("max_ms", ms(percentile(sorted, 100)))
                .with("settle_ms", opt.settleMs)
                .with("publish_p50_ms", ms(percentile(publish, 50)))
                .with("publish_p99_ms", ms(percentile(publish, 99)));
    }

    // ------------------------------------------------------------------------------------------------
    // held-long-polls
    // ------------------------------------------------------------------------------------------------

    private Result runHeldLongPolls(String name, String dataId) throws Exception {
        int polls = opt.polls;
        long fdLimit = openFileLimit("self");
        if (fdLimit >= 0 && fdLimit < polls + SPARE_FDS) {
            throw new IllegalStateException("this process may open only " + fdLimit + " files, but " + polls
                    + " polls need about " + (polls + SPARE_FDS) + ": run it from a shell with a higher limit"
                    + " (ulimit -n 65536), or lower --polls");
        }
        if (opt.serverPid > 0) {
            long serverLimit = openFileLimit(String.valueOf(opt.serverPid));
            if (serverLimit >= 0 && serverLimit < polls + 1000L) {
                note(
                        name,
                        "warning: the server (pid " + opt.serverPid + ") may open only " + serverLimit
                                + " files; start it from a shell with ulimit -n 65536");
            }
        }

        String v1 = contentOf(dataId, 0);
        require("initial publish", http.publish(dataId, v1));
        http.awaitConfig(dataId, v1, Duration.ofSeconds(30));
        String entry = dataId + '\u0002' + GROUP + '\u0002' + md5Hex(v1) + '\u0001';
        String body = "Listening-Configs=" + URLEncoder.encode(entry, StandardCharsets.UTF_8);
        String hostPort = opt.addr;
        byte[] request = ("POST " + LISTENER + " HTTP/1.1\r\n"
                        + "Host: " + hostPort + "\r\n"
                        + "User-Agent: ConfigListenBench\r\n"
                        + "Content-Type: application/x-www-form-urlencoded\r\n"
                        + "Content-Length: " + body.getBytes(StandardCharsets.UTF_8).length + "\r\n"
                        + "Long-Pulling-Timeout: " + HELD_POLL_TIMEOUT_MS + "\r\n"
                        + "\r\n"
                        + body)
                .getBytes(StandardCharsets.UTF_8);
        String changedKey = URLEncoder.encode(dataId + '\u0002' + GROUP + '\u0001', StandardCharsets.UTF_8);

        int baseline = http.held();
        if (baseline != 0) {
            note(name, "note: the server already holds " + baseline + " polls of other clients");
        }
        Double rssBefore = rssMib();

        ErrorLog errorLog = new ErrorLog(name);
        PollFleet fleet = new PollFleet(opt.host(), opt.port(), request, changedKey, errorLog);
        Thread loop = new Thread(fleet::run, "bench-selector");
        loop.setDaemon(true);
        loop.start();
        try {
            // Connect in batches: open --connect-batch connections, wait until they have connected and sent
            // their request and until the server reports them held, then open the next batch. So at most one
            // batch waits in the server's accept queue at a time (Jetty's default backlog is 50: a larger
            // burst overflows it, and every dropped SYN costs the client a 1 s retransmission).
            long connectStart = System.nanoTime();
            for (int opened = 0; opened < polls; ) {
                int batch = Math.min(opt.connectBatch, polls - opened);
                fleet.open(batch);
                opened += batch;
                long batchDeadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(CONNECT_BATCH_WAIT_MS);
                while (fleet.settled() < opened && System.nanoTime() < batchDeadline) {
                    fleet.checkFatal();
                    Thread.sleep(1);
                }
                int heldNow = http.held();
                while (heldNow < fleet.sent.get() && System.nanoTime() < batchDeadline && fleet.answered.get() == 0) {
                    fleet.checkFatal();
                    Thread.sleep(1);
                    heldNow = http.held();
                }
                fleet.checkFatal();
                if (fleet.answered.get() > 0) {
                    break; // answered before the publish: reported below
                }
                if (fleet.failed.get() > 0) {
                    break; // reported below
                }
                if (System.nanoTime() >= batchDeadline) {
                    throw new IllegalStateException(String.format(
                            Locale.ROOT,
                            "stuck %d s after opening poll %d:"
                                    + " %d connected and sent, but the server holds only %d (is the server's open-file"
                                    + " limit high enough? start it from a shell with ulimit -n 65536)",
                            CONNECT_BATCH_WAIT_MS / 1000,
                            opened,
                            fleet.sent.get(),
                            heldNow - baseline));
                }
            }
            while (fleet.settled() < polls && System.nanoTime() - connectStart < TimeUnit.SECONDS.toNanos(60)) {
                fleet.checkFatal();
                Thread.sleep(5);
            }
            double connectSeconds = (System.nanoTime() - connectStart) / 1e9;
            note(
                    name,
                    String.format(
                            Locale.ROOT,
                            "%d connected and sent, %d failed, in %.2f s",
                            fleet.sent.get(),
                            fleet.failed.get(),
                            connectSeconds));
            if (fleet.failed.get() > 0) {
                throw new IllegalStateException(fleet.failed.get() + " of " + polls
                        + " polls could not connect or send (" + fleet.firstFailure.get() + ")");
            }

            // wait until the server holds them all
            long heldDeadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(HELD_DEADLINE_MS);
            int held = http.held();
            while (held < polls && System.nanoTime() < heldDeadline) {
                fleet.checkFatal();
                if (fleet.answered.get() > 0) {
                    break; // answered before the publish: they will never all be held
                }
                Thread.sleep(100);
                held = http.held();
            }
            note(
                    name,
                    String.format(
                            Locale.ROOT,
                            "server holds %d polls, %.2f s after the first connect",
                            held,
                            (System.nanoTime() - connectStart) / 1e9));
            if (fleet.answered.get() > 0) {
                throw new IllegalStateException(fleet.answered.get() + " polls were answered before the publish ("
                        + fleet.firstFailure.get() + "); the server holds " + held);
            }
            if (held < polls) {
                throw new IllegalStateException("the server holds only " + held + " of " + polls + " polls after "
                        + HELD_DEADLINE_MS / 1000 + " s (is the server's open-file limit high enough?"
                        + " start it from a shell with ulimit -n 65536)");
            }
            Double rssHeld = rssMib();

            // fan-out: one publish wakes them all
            String v2 = contentOf(dataId, 1);
            fleet.publishedAt = System.nanoTime();
            long t0 = fleet.publishedAt;
            String failure = http.publish(dataId, v2);
            long publishNanos = System.nanoTime() - t0;
            require("fan-out publish", failure);
            long fanoutDeadline = t0 + TimeUnit.MILLISECONDS.toNanos(FANOUT_DEADLINE_MS);
            while (fleet.answered.get() < polls && System.nanoTime() < fanoutDeadline) {
                fleet.checkFatal();
                Thread.sleep(5);
            }
            fleet.stop();
            loop.join(10_000);
            note(
                    name,
                    String.format(
                            Locale.ROOT,
                            "fan-out: %d answers; the client's selector thread was busy" + " %.0f ms reading them",
                            fleet.answered.get(),
                            fleet.busyAfterPublish / 1e6));
            long unanswered = polls - fleet.answered.get();
            if (unanswered > 0) {
                errorLog.report(unanswered + " polls had no answer " + FANOUT_DEADLINE_MS + " ms after the publish");
            }
            long errors = fleet.bad.get() + unanswered;
            long[] sorted = fleet.wakeups.toSortedArray();
            double allMs = unanswered > 0 ? FANOUT_DEADLINE_MS : (fleet.lastAnswerAt - t0) / 1e6;
            return new Result(name, errors)
                    .with("polls", polls)
                    .with("connect_seconds", connectSeconds)
                    .with("held", held)
                    .with("rss_before_mib", rssBefore)
                    .with("rss_held_mib", rssHeld)
                    .with("fanout_p50_ms", ms(percentile(sorted, 50)))
                    .with("fanout_p99_ms", ms(percentile(sorted, 99)))
                    .with("fanout_all_ms", allMs)
                    .with("errors", errors)
                    .with("publish_ms", publishNanos / 1e6);
        } finally {
            fleet.stop();
            loop.join(10_000);
            fleet.closeAll();
        }
    }

    /**
     * The --polls connections of held-long-polls, all driven by one selector thread: opens connections
     * when asked (non-blocking connect), writes the prebuilt request, reads and checks each answer.
     */
    static final class PollFleet {
        private final InetSocketAddress target;
        private final byte[] request;
        private final String changedKey;
        private final ErrorLog errorLog;
        private final Selector selector;
        private final ConcurrentLinkedQueue<Integer> toOpen = new ConcurrentLinkedQueue<>();
        private final List<SocketChannel> channels = new ArrayList<>();
        private final ByteBuffer readBuffer = ByteBuffer.allocateDirect(16 * 1024);
        private volatile boolean stopped;

        /** Sockets opened. */
        final AtomicInteger opened = new AtomicInteger();
        /** Connections whose request was written completely. */
        final AtomicInteger sent = new AtomicInteger();
        /** Connections that could not be opened, connected or written. */
        final AtomicInteger failed = new AtomicInteger();
        /** Connections with a complete answer (or a failure after their request was sent). */
        final AtomicInteger answered = new AtomicInteger();
        /** Answers that were not "200 naming the key" after the publish. */
        final AtomicInteger bad = new AtomicInteger();

        final AtomicReference<String> firstFailure = new AtomicReference<>();
        final AtomicReference<IOException> fatal = new AtomicReference<>();
        /** Per-poll publish-start to answer-received, nanoseconds; written by the selector thread only. */
        final LongList wakeups = new LongList();

        volatile long publishedAt;
        volatile long lastAnswerAt;
        /** Time the selector thread spent handling ready keys after the publish (its own CPU share). */
        volatile long busyAfterPublish;

        PollFleet(String host, int port, byte[] request, String changedKey, ErrorLog errorLog) throws IOException {
            this.target = new InetSocketAddress(host, port);
            this.request = request;
            this.changedKey = changedKey;
            this.errorLog = errorLog;
            this.selector = Selector.open();
        }

        /** One connection's state. */
        final class Conn {
            final SocketChannel channel;
            final ByteBuffer out = ByteBuffer.wrap(request);
            byte[] in = new byte[512];
            int inLength;
            boolean done;

            Conn(SocketChannel channel) {
                this.channel = channel;
            }
        }

        int settled() {
            return sent.get() + failed.get();
        }

        void open(int n) {
            toOpen.add(n);
            selector.wakeup();
        }

        void stop() {
            stopped = true;
            selector.wakeup();
        }

        /** Throws the "Too many open files" (or other) error that stopped the fleet from opening connections. */
        void checkFatal() throws IOException {
            IOException e = fatal.get();
            if (e != null) {
                String msg = String.valueOf(e.getMessage());
                if (msg.contains("Too many open files")) {
                    throw new IOException(
                            "Too many open files after " + opened.get() + " connections: raise"
                                    + " the client's open-file limit (run from a shell with ulimit -n 65536) or lower --polls",
                            e);
                }
                throw e;
            }
        }

        void run() {
            try {
                while (!stopped) {
                    Integer n;
                    while ((n = toOpen.poll()) != null) {
                        openNow(n);
                    }
                    selector.select(50);
                    long t = System.nanoTime();
                    for (SelectionKey key : selector.selectedKeys()) {
                        handle(key);
                    }
                    selector.selectedKeys().clear();
                    if (publishedAt != 0) {
                        busyAfterPublish += System.nanoTime() - t;
                    }
                }
            } catch (IOException | RuntimeException e) {
                fatal.compareAndSet(null, e instanceof IOException ? (IOException) e : new IOException(e));
            }
        }

        private void openNow(int n) {
            for (int i = 0; i < n; i++) {
                SocketChannel ch;
                try {
                    ch = SocketChannel.open();
                } catch (IOException e) {
                    fatal.compareAndSet(null, e);
                    return;
                }
                channels.add(ch);
                opened.incrementAndGet();
                try {
                    ch.configureBlocking(false);
                    Conn c = new Conn(ch);
                    if (ch.connect(target)) {
                        ch.register(selector, SelectionKey.OP_WRITE, c);
                    } else {
                        ch.register(selector, SelectionKey.OP_CONNECT, c);
                    }
                } catch (IOException e) {
                    if (String.valueOf(e.getMessage()).contains("Too many open files")) {
                        fatal.compareAndSet(null, e);
                        return;
                    }
                    fail("connect: " + describe(e));
                    closeQuietly(ch);
                }
            }
        }

        private void handle(SelectionKey key) {
            Conn c = (Conn) key.attachment();
            if (!key.isValid()) {
                return;
            }
            try {
                if (key.isConnectable()) {
                    c.channel.finishConnect();
                    key.interestOps(SelectionKey.OP_WRITE);
                }
                if (key.isValid() && (key.isWritable() || (key.interestOps() & SelectionKey.OP_WRITE) != 0)) {
                    c.channel.write(c.out);
                    if (!c.out.hasRemaining()) {
                        key.interestOps(SelectionKey.OP_READ);
                        sent.incrementAndGet();
                    }
                    return;
                }
                if (key.isReadable()) {
                    read(key, c);
                }
            } catch (IOException e) {
                boolean connected = c.channel.isConnected();
                key.cancel();
                closeQuietly(c.channel);
                if (c.out.hasRemaining()) {
                    fail((connected ? "send: " : "connect: ") + describe(e));
                } else {
                    answer(c, "connection failed while held: " + describe(e));
                }
            }
        }

        private void fail(String why) {
            failed.incrementAndGet();
            firstFailure.compareAndSet(null, why);
            errorLog.report(why);
        }

        private void read(SelectionKey key, Conn c) throws IOException {
            while (true) {
                readBuffer.clear();
                int n = c.channel.read(readBuffer);
                if (n < 0) {
                    key.cancel();
                    String partial = new String(c.in, 0, c.inLength, StandardCharsets.ISO_8859_1);
                    answer(c, "closed by the server" + (c.inLength > 0 ? " after " + abbreviate(partial) : ""));
                    return;
                }
                if (n == 0) {
                    return;
                }
                readBuffer.flip();
                if (c.inLength + n > c.in.length) {
                    c.in = Arrays.copyOf(c.in, Math.max(c.in.length * 2, c.inLength + n));
                }
                readBuffer.get(c.in, c.inLength, n);
                c.inLength += n;
                String verdict = HttpAnswer.check(c.in, c.inLength, changedKey);
                if (verdict != HttpAnswer.INCOMPLETE) {
                    key.interestOps(0);
                    answer(c, verdict);
                    return;
                }
            }
        }

        /** Records a poll's outcome: null for "200 naming the key", else why not. */
        private void answer(Conn c, String failure) {
            if (c.done) {
                return;
            }
            c.done = true;
            long now = System.nanoTime();
            long published = publishedAt;
            if (published == 0) {
                failure = "answered before the publish: " + (failure == null ? "200 naming the key" : failure);
            }
            if (failure == null) {
                wakeups.add(now - published);
            } else {
                bad.incrementAndGet();
                firstFailure.compareAndSet(null, failure);
                errorLog.report(failure);
            }
            lastAnswerAt = now;
            answered.incrementAndGet();
        }

        void closeAll() {
            for (SocketChannel ch : channels) {
                closeQuietly(ch);
            }
            channels.clear();
            try {
                selector.close();
            } catch (IOException ignored) {
                // nothing to do
            }
        }

        private static void closeQuietly(SocketChannel ch) {
            try {
                ch.close();
            } catch (IOException ignored) {
                // nothing to do
            }
        }
    }

    /** Just enough of an HTTP/1.1 response parser to tell when one answer is complete and whether it is right. */
    static final class HttpAnswer {
        /** check()'s result while the answer is not complete yet. */
        static final String INCOMPLETE = new String("incomplete");

        private static final Pattern CONTENT_LENGTH = Pattern.compile("(?im)^content-length:\\s*(\\d+)\\s*$");
        private static final Pattern CHUNKED = Pattern.compile("(?im)^transfer-encoding:\\s*chunked\\s*$");

        /** INCOMPLETE, null for a complete 200 whose body names the key, else a description. */
        static String check(byte[] data, int length, String changedKey) {
            int headEnd = indexOf(data, length, "\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1), 0);
            if (headEnd < 0) {
                return INCOMPLETE;
            }
            String head = new String(data, 0, headEnd, StandardCharsets.ISO_8859_1);
            int bodyStart = headEnd + 4;
            String body;
            Matcher cl = CONTENT_LENGTH.matcher(head);
            if (cl.find()) {
                int n = Integer.parseInt(cl.group(1));
                if (length - bodyStart < n) {
                    return INCOMPLETE;
                }
                body = new String(data, bodyStart, n, StandardCharsets.UTF_8);
            } else if (CHUNKED.matcher(head).find()) {
                body = dechunk(data, bodyStart, length);
                if (body == null) {
                    return INCOMPLETE;
                }
            } else {
                return INCOMPLETE; // delimited by the end of the connection: read until then
            }
            String status =
                    head.substring(0, Math.max(0, head.indexOf("\r\n") < 0 ? head.length() : head.indexOf("\r\n")));
            if (!status.startsWith("HTTP/1.1 200") && !status.startsWith("HTTP/1.0 200")) {
                return status + ": " + abbreviate(body);
            }
            return body.contains(changedKey) ? null : "200 without the key: " + abbreviate(body);
        }

        /** The body of a complete chunked message, or null if it is not complete yet. */
        private static String dechunk(byte[] data, int from, int length) {
            StringBuilder sb = new StringBuilder();
            byte[] crlf = {'\r', '\n'};
            int pos = from;
            while (true) {
                int lineEnd = indexOf(data, length, crlf, pos);
                if (lineEnd < 0) {
                    return null;
                }
                String sizeLine = new String(data, pos, lineEnd - pos, StandardCharsets.ISO_8859_1);
                int semi = sizeLine.indexOf(';');
                int size = Integer.parseInt((semi < 0 ? sizeLine : sizeLine.substring(0, semi)).trim(), 16);
                pos = lineEnd + 2;
                if (size == 0) {
                    // trailers end with an empty line
                    return indexOf(data, length, "\r\n".getBytes(StandardCharsets.ISO_8859_1), pos) < 0
                            ? null
                            : sb.toString();
                }
                if (length < pos + size + 2) {
                    return null;
                }
                sb.append(new String(data, pos, size, StandardCharsets.UTF_8));
                pos += size + 2;
            }
        }

        private static int indexOf(byte[] data, int length, byte[] pattern, int from) {
            outer:
            for (int i = from; i <= length - pattern.length; i++) {
                for (int j = 0; j < pattern.length; j++) {
                    if (data[i + j] != pattern[j]) {
                        continue outer;
                    }
                }
                return i;
            }
            return -1;
        }
    }

    /** The server's resident set size in MiB, from /proc/PID/status; null without --server-pid. */
    private Double rssMib() {
        if (opt.serverPid <= 0) {
            return null;
        }
        try {
            for (String line : Files.readAllLines(Path.of("/proc/" + opt.serverPid + "/status"))) {
                if (line.startsWith("VmRSS:")) {
                    String[] parts = line.trim().split("\\s+"); // VmRSS:  123456 kB
                    return Long.parseLong(parts[1]) / 1024.0;
                }
            }
            note("held-long-polls", "no VmRSS line in /proc/" + opt.serverPid + "/status");
        } catch (IOException | RuntimeException e) {
            note("held-long-polls", "cannot read the RSS of pid " + opt.serverPid + ": " + describe(e));
        }
        return null;
    }

    /** The soft "Max open files" limit of a process ("self" or a pid), or -1 if unknown or unlimited. */
    static long openFileLimit(String pid) {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/" + pid + "/limits"))) {
                if (line.startsWith("Max open files")) {
                    String soft =
                            line.substring("Max open files".length()).trim().split("\\s+")[0];
                    return soft.equals("unlimited") ? -1 : Long.parseLong(soft);
                }
            }
        } catch (IOException | RuntimeException e) {
            // not Linux, or no such process: no check
        }
        return -1;
    }

    // ------------------------------------------------------------------------------------------------
    // HTTP
    // ------------------------------------------------------------------------------------------------

    record Response(int status, String body) {}

    /** The few requests the scenarios make besides the long-polls: publishes over {@link RawHttp}, the rest over java.net.http (HTTP/1.1 keep-alive). */
    static final class Http {
        private final HttpClient client = HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(5))
                .build();
        private final String base;
        private final RawHttp publisher;

        Http(String addr) {
            this.base = "http://" + addr;
            this.publisher = new RawHttp(addr);
        }

        /** Publishes a config; null on "200 true", else a description of the failure. */
        String publish(String dataId, String content) throws IOException {
            Response r = publisher.postForm(CONFIGS, form("dataId", dataId, "group", GROUP, "content", content));
            return r.status() == 200 && r.body().strip().equals("true")
                    ? null
                    : "HTTP " + r.status() + ": " + abbreviate(r.body());
        }

        Response getConfig(String dataId) throws IOException, InterruptedException {
            return send(
                    HttpRequest.newBuilder(URI.create(base + CONFIGS + "?" + form("dataId", dataId, "group", GROUP)))
                            .timeout(Duration.ofSeconds(10))
                            .GET()
                            .build());
        }

        /** Polls the config until it reads back with the expected content. */
        void awaitConfig(String dataId, String expected, Duration limit) throws Exception {
            long deadline = System.nanoTime() + limit.toNanos();
            Response r;
            do {
                r = getConfig(dataId);
                if (r.status() == 200 && r.body().equals(expected)) {
                    return;
                }
                Thread.sleep(20);
            } while (System.nanoTime() < deadline);
            throw new IllegalStateException("config " + dataId + " not readable after " + limit + ": HTTP " + r.status()
                    + " " + abbreviate(r.body()));
        }

        /** GET /lodestar/v1/config/listeners: the number of polls the server holds. */
        int held() throws IOException, InterruptedException {
            Response r = send(HttpRequest.newBuilder(URI.create(base + HELD))
                    .timeout(Duration.ofSeconds(10))
                    .GET()
                    .build());
            String n = r.status() == 200 ? jsonField(r.body(), "held") : null;
            if (n == null) {
                throw new IOException(HELD + " answered HTTP " + r.status() + ": " + abbreviate(r.body()));
            }
            return Integer.parseInt(n);
        }

        /** Arms a long-poll on one key; the future completes when the whole answer has arrived. */
        CompletableFuture<Response> listenAsync(String dataId, String md5, int timeoutMs) {
            HttpRequest req = HttpRequest.newBuilder(URI.create(base + LISTENER))
                    .timeout(Duration.ofMillis(timeoutMs + 10_000L))
                    .header("Content-Type", "application/x-www-form-urlencoded;charset=UTF-8")
                    .header("Long-Pulling-Timeout", String.valueOf(timeoutMs))
                    .POST(HttpRequest.BodyPublishers.ofString(
                            form("Listening-Configs", dataId + '\u0002' + GROUP + '\u0002' + md5 + '\u0001')))
                    .build();
            return client.sendAsync(req, HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8))
                    .thenApply(r -> new Response(r.statusCode(), r.body()));
        }

        private Response send(HttpRequest req) throws IOException, InterruptedException {
            HttpResponse<String> r = client.send(req, HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
            return new Response(r.statusCode(), r.body());
        }

        static String form(String... keysAndValues) {
            StringBuilder sb = new StringBuilder();
            for (int i = 0; i < keysAndValues.length; i += 2) {
                if (sb.length() > 0) {
                    sb.append('&');
                }
                sb.append(URLEncoder.encode(keysAndValues[i], StandardCharsets.UTF_8))
                        .append('=')
                        .append(URLEncoder.encode(keysAndValues[i + 1], StandardCharsets.UTF_8));
            }
            return sb.toString();
        }
    }

    static void require(String what, String failure) {
        if (failure != null) {
            throw new IllegalStateException(what + " failed: " + failure);
        }
    }

    // ------------------------------------------------------------------------------------------------
    // Results
    // ------------------------------------------------------------------------------------------------

    /** One scenario's outcome, printed as a single JSON line with its fields in insertion order. */
    static final class Result {
        final long errors;
        final Map<String, Object> fields = new LinkedHashMap<>();

        Result(String scenario, long errors) {
            this.errors = errors;
            fields.put("scenario", scenario);
        }

        Result with(String key, Object value) {
            fields.put(key, value);
            return this;
        }

        String toJson() {
            StringBuilder sb = new StringBuilder("{");
            fields.forEach((k, v) -> {
                if (sb.length() > 1) {
                    sb.append(',');
                }
                sb.append('"').append(k).append("\":");
                if (v == null) {
                    sb.append("null");
                } else if (v instanceof Double || v instanceof Float) {
                    sb.append(String.format(Locale.ROOT, "%.3f", ((Number) v).doubleValue()));
                } else if (v instanceof Number) {
                    sb.append(v);
                } else {
                    sb.append('"').append(v).append('"');
                }
            });
            return sb.append('}').toString();
        }
    }

    /** Nearest-rank percentile of sorted nanoseconds; 0 when there are no samples. */
    static long percentile(long[] sorted, double p) {
        if (sorted.length == 0) {
            return 0;
        }
        int rank = (int) Math.ceil(p / 100.0 * sorted.length);
        return sorted[Math.max(0, Math.min(sorted.length - 1, rank - 1))];
    }

    static double ms(long nanos) {
        return nanos / 1e6;
    }

    /** A growable array of primitive longs (latency samples in nanoseconds). */
    static final class LongList {
        private long[] values = new long[1024];
        private int size;

        void add(long v) {
            if (size == values.length) {
                values = Arrays.copyOf(values, size * 2);
            }
            values[size++] = v;
        }

        long[] toSortedArray() {
            long[] copy = Arrays.copyOf(values, size);
            Arrays.sort(copy);
            return copy;
        }
    }

    /** Describes the first few failures of a scenario on stderr; the rest are only counted. */
    static final class ErrorLog {
        final String scenario;
        private final AtomicInteger shown = new AtomicInteger();

        ErrorLog(String scenario) {
            this.scenario = scenario;
        }

        void report(String failure) {
            int n = shown.incrementAndGet();
            if (n <= ERRORS_TO_SHOW) {
                note(scenario, "error: " + failure);
            } else if (n == ERRORS_TO_SHOW + 1) {
                note(scenario, "further errors are counted but not shown");
            }
        }
    }

    // ------------------------------------------------------------------------------------------------
    // Options
    // ------------------------------------------------------------------------------------------------

    static final class Options {
        static final String USAGE = String.join(
                "\n",
                "usage: it-tests/bench/run.sh ConfigListenBench [options]",
                "  --addr HOST:PORT         server address (default 127.0.0.1:8848)",
                "  --scenario NAME[,NAME]   one or more of " + String.join(", ", ALL_SCENARIOS) + ", or all"
                        + " (default all)",
                "  --rounds N               recorded rounds of the two *-notify-latency scenarios (default 200)",
                "  --warmup-rounds N        rounds run and checked before those, not recorded (default 100): the",
                "                           first rounds after a server start or a wrk run time its JIT compiling",
                "                           the push and long-poll paths (0 to record from the first)",
                "  --settle-ms N            latency: wait before each publish (default 20)",
                "  --polls N                held-long-polls: concurrent long-polls, one connection each (default 10000)",
                "  --connect-batch N        held-long-polls: connections opened at once; the next batch is opened",
                "                           once the server reports these held (default 50)",
                "  --server-pid PID         held-long-polls: report the server's RSS from /proc/PID/status",
                "Prints one JSON line per scenario on stdout; diagnostics go to stderr. Exit code 1 if a scenario",
                "could not run or counted errors. held-long-polls needs an open-file limit above --polls in both",
                "this process and the server (start both from a shell with ulimit -n 65536).");

        String addr = "127.0.0.1:8848";
        String scenario = "all";
        int rounds = 200;
        int warmupRounds = 100;
        int settleMs = 20;
        int polls = 10_000;
        int connectBatch = 50;
        long serverPid = 0;

        /** Parses "--key value" and "--key=value" arguments; returns null for --help. */
        static Options parse(String[] args) {
            Options o = new Options();
            for (int i = 0; i < args.length; i++) {
                String arg = args[i];
                if (arg.equals("--help") || arg.equals("-h")) {
                    return null;
                }
                if (!arg.startsWith("--")) {
                    throw new IllegalArgumentException("unexpected argument " + arg);
                }
                String key;
                String value;
                int eq = arg.indexOf('=');
                if (eq > 0) {
                    key = arg.substring(2, eq);
                    value = arg.substring(eq + 1);
                } else {
                    if (i + 1 >= args.length) {
                        throw new IllegalArgumentException("missing value for " + arg);
                    }
                    key = arg.substring(2);
                    value = args[++i];
                }
                switch (key) {
                    case "addr":
                        o.addr = value;
                        break;
                    case "scenario":
                        o.scenario = value;
                        break;
                    case "rounds":
                        o.rounds = positive(key, value);
                        break;
                    case "warmup-rounds":
                        o.warmupRounds = nonNegative(key, value);
                        break;
                    case "settle-ms":
                        o.settleMs = nonNegative(key, value);
                        break;
                    case "polls":
                        o.polls = positive(key, value);
                        break;
                    case "connect-batch":
                        o.connectBatch = positive(key, value);
                        break;
                    case "server-pid":
                        o.serverPid = positive(key, value);
                        break;
                    default:
                        throw new IllegalArgumentException("unknown option --" + key);
                }
            }
            o.scenarios(); // validate early
            o.port();
            return o;
        }

        String host() {
            int colon = addr.lastIndexOf(':');
            return colon < 0 ? addr : addr.substring(0, colon);
        }

        int port() {
            int colon = addr.lastIndexOf(':');
            if (colon < 0) {
                throw new IllegalArgumentException("--addr needs HOST:PORT, got " + addr);
            }
            return positive("addr", addr.substring(colon + 1));
        }

        List<String> scenarios() {
            if (scenario.equals("all")) {
                return ALL_SCENARIOS;
            }
            List<String> names = Arrays.asList(scenario.split(","));
            for (String n : names) {
                if (!ALL_SCENARIOS.contains(n)) {
                    throw new IllegalArgumentException("unknown scenario " + n);
                }
            }
            return names;
        }

        private static int nonNegative(String key, String value) {
            int n;
            try {
                n = Integer.parseInt(value);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("--" + key + " needs a number, got " + value);
            }
            if (n < 0) {
                throw new IllegalArgumentException("--" + key + " must not be negative");
            }
            return n;
        }

        private static int positive(String key, String value) {
            int n = nonNegative(key, value);
            if (n == 0) {
                throw new IllegalArgumentException("--" + key + " must be positive");
            }
            return n;
        }
    }

    // ------------------------------------------------------------------------------------------------
    // Small helpers
    // ------------------------------------------------------------------------------------------------

    /** Lower-case hex MD5 of the UTF-8 bytes, as the server reports it. */
    static String md5Hex(String s) {
        try {
            byte[] digest = MessageDigest.getInstance("MD5").digest(s.getBytes(StandardCharsets.UTF_8));
            StringBuilder sb = new StringBuilder(32);
            for (byte b : digest) {
                sb.append(Character.forDigit((b >> 4) & 0xf, 16)).append(Character.forDigit(b & 0xf, 16));
            }
            return sb.toString();
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private static final Map<String, Pattern> FIELD_PATTERNS = new java.util.concurrent.ConcurrentHashMap<>();

    /**
     * A top-level string, number or boolean field of a flat JSON object (the push channel's messages),
     * unescaped enough for keys and md5s; null if absent.
     */
    static String jsonField(String json, String name) {
        Pattern p = FIELD_PATTERNS.computeIfAbsent(
                name,
                n -> Pattern.compile("\"" + Pattern.quote(n)
                        + "\"\\s*:\\s*(?:\"((?:[^\"\\\\]|\\\\.)*)\"|(-?[0-9][0-9.eE+-]*|true|false))"));
        Matcher m = p.matcher(json);
        if (!m.find()) {
            return null;
        }
        return m.group(1) != null ? m.group(1).replace("\\\"", "\"").replace("\\\\", "\\") : m.group(2);
    }

    static String abbreviate(String s) {
        String oneLine = s.replaceAll("\\s+", " ").strip();
        return oneLine.length() <= 200 ? "\"" + oneLine + "\"" : "\"" + oneLine.substring(0, 200) + "...\"";
    }

    static String describe(Throwable e) {
        return e.getClass().getSimpleName() + (e.getMessage() != null ? ": " + e.getMessage() : "");
    }

    /** Describes a completed request future: its status and body, or its exception. */
    private static String outcome(CompletableFuture<Response> done) {
        try {
            Response r = done.get();
            return "HTTP " + r.status() + " " + abbreviate(r.body());
        } catch (Exception e) {
            return describe(e instanceof ExecutionException ? e.getCause() : e);
        }
    }

    static void note(String scenario, String message) {
        System.err.println("[" + scenario + "] " + message);
    }
}
