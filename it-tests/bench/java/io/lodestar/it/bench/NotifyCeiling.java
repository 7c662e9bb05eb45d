package io.lodestar.it.bench;

import jakarta.servlet.AsyncContext;
import jakarta.servlet.AsyncEvent;
import jakarta.servlet.AsyncListener;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.server.handler.AbstractHandler;

/**
 * The floor under NacosBench's {@code config-notify-latency} on this machine: the Jetty the server
 * runs on, alone, keeping configs in a map (no Raft, no disk, no history) and holding long-polls
 * until a publish to their key answers them on the publishing thread. What NacosBench measures
 * against it is what the client, the HTTP stack and the machine cost; a real server's figure can
 * only be higher. Run it on the server jar's classpath, then point NacosBench at it:
 *
 * <pre>
 * BENCH_JAVA_OPTS=-Xmx512m it-tests/bench/run.sh NotifyCeiling [--port 18848]
 * java ../shared/bench/NacosBench.java --addr 127.0.0.1:18848 --scenario config-notify-latency
 * </pre>
 *
 * Only the requests NacosBench's notify scenario sends are understood: publish and get of a config
 * in the public namespace by dataId and group, and the long-poll with {@code Listening-Configs}.
 */
public final class NotifyCeiling {
    private final Map<String, String> contents = new ConcurrentHashMap<>();
    private final Map<String, List<AsyncContext>> held = new java.util.HashMap<>(); // guarded by itself

    public static void main(String[] args) throws Exception {
        int port = 18848;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--port" -> port = Integer.parseInt(args[++i]);
                case "--help", "-h" -> {
                    System.out.println("usage: it-tests/bench/run.sh NotifyCeiling [--port N]  (default 18848)");
                    return;
                }
                default -> throw new IllegalArgumentException("unknown option " + args[i] + " (try --help)");
            }
        }
        NotifyCeiling ceiling = new NotifyCeiling();
        Server server = new Server();
        ServerConnector connector = new ServerConnector(server);
        connector.setPort(port);
        server.addConnector(connector);
        server.setHandler(new AbstractHandler() {
            @Override
            public void handle(String target, Request base, HttpServletRequest req, HttpServletResponse resp)
                    throws IOException {
                base.setHandled(true);
                ceiling.handle(target, req, resp);
            }
        });
        server.start();
        System.err.println("NotifyCeiling: bare Jetty configs and long-polls on port " + port + "; Ctrl-C stops it");
        server.join();
    }

    private void handle(String target, HttpServletRequest req, HttpServletResponse resp) throws IOException {
        switch (target) {
            case "/nacos/v1/cs/configs" -> {
                String key = req.getParameter("dataId") + '\u0002' + req.getParameter("group");
                if ("POST".equals(req.getMethod())) {
                    contents.put(key, req.getParameter("content"));
                    answerHeld(key);
                    write(resp, 200, "true");
                } else {
                    String content = contents.get(key);
                    write(resp, content == null ? 404 : 200, content == null ? "config data not exist" : content);
                }
            }
            case "/nacos/v1/cs/configs/listener" -> listen(req, resp);
            default -> write(resp, 404, "no such path");
        }
    }

    private void listen(HttpServletRequest req, HttpServletResponse resp) throws IOException {
        // dataId^2group^2md5^1 ... ; NacosBench listens to one key
        String[] entry =
                req.getParameter("Listening-Configs").split("\u0001")[0].split("\u0002");
        String key = entry[0] + '\u0002' + entry[1];
        String content = contents.get(key);
        if (content == null || !md5(content).equals(entry[2])) {
            write(resp, 200, changedKey(key)); // stale already: answer at once
            return;
        }
        AsyncContext async = req.startAsync();
        async.setTimeout(Long.parseLong(req.getHeader("Long-Pulling-Timeout")));
        async.addListener(new AsyncListener() {
            @Override
            public void onTimeout(AsyncEvent e) throws IOException {
                synchronized (held) {
                    List<AsyncContext> waiting = held.get(key);
                    if (waiting != null) {
                        waiting.remove(async);
                    }
                }
                write(resp, 200, ""); // nothing changed in time, as Nacos answers
                async.complete();
            }

            @Override
            public void onComplete(AsyncEvent e) {}

            @Override
            public void onError(AsyncEvent e) {}

            @Override
            public void onStartAsync(AsyncEvent e) {}
        });
        synchronized (held) {
            held.computeIfAbsent(key, k -> new ArrayList<>()).add(async);
        }
    }

    private void answerHeld(String key) throws IOException {
        List<AsyncContext> waiting;
        synchronized (held) {
            waiting = held.remove(key);
        }
        if (waiting == null) {
            return;
        }
        for (AsyncContext async : waiting) {
            write((HttpServletResponse) async.getResponse(), 200, changedKey(key));
            async.complete();
        }
    }

    private static String changedKey(String key) {
        return URLEncoder.encode(key + '\u0001', StandardCharsets.UTF_8);
    }

    private static void write(HttpServletResponse resp, int status, String body) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        resp.setStatus(status);
        resp.setContentType("text/plain;charset=utf-8");
        resp.setContentLength(bytes.length);
        resp.getOutputStream().write(bytes);
    }

    private static String md5(String s) {
        try {
            return HexFormat.of()
                    .formatHex(MessageDigest.getInstance("MD5").digest(s.getBytes(StandardCharsets.UTF_8)));
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
