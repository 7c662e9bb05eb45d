package io.lodestar.api.server;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.javalin.Javalin;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.xbill.DNS.DClass;
import org.xbill.DNS.Message;
import org.xbill.DNS.Name;
import org.xbill.DNS.Record;
import org.xbill.DNS.SOARecord;
import org.xbill.DNS.Type;

/**
 * Runs, on a background thread begun before the command line is even parsed, what the server's
 * start would otherwise do last and alone: loading and initialising the HTTP stack (Javalin and
 * Kotlin, Jetty, Jackson, the Prometheus registry), serving one request on a throwaway loopback
 * port, and building one DNS answer. Start-up is bound by class loading and the JIT, not I/O: while
 * the main thread opens RocksDB and starts Raft, the second core does this, and the real HTTP and
 * DNS servers then start on classes already loaded. It keeps nothing and binds only an ephemeral
 * loopback port, closed again at once.
 */
public final class StartupWarmup {
    private static final Logger LOG = LoggerFactory.getLogger(StartupWarmup.class);

    private StartupWarmup() {}

    public static void startInBackground() {
        Thread t = new Thread(StartupWarmup::run, "startup-warmup");
        t.setDaemon(true);
        t.setPriority(Thread.MIN_PRIORITY);
        t.start();
    }

    private static void run() {
        try {
            httpStack();
            new ObjectMapper().writeValueAsString(Map.of("warm", List.of(1, "up")));
            new PrometheusMeterRegistry(PrometheusConfig.DEFAULT).close();
            dns();
        } catch (Exception | LinkageError e) {
            LOG.debug("start-up warm-up skipped: {}", e.toString()); // only start-up time is lost
        }
    }

    private static void httpStack() throws Exception {
        Javalin app = Javalin.create(config -> config.showJavalinBanner = false)
                .get("/warm", ctx -> ctx.json(Map.of("warm", true)))
                .start(InetAddress.getLoopbackAddress().getHostAddress(), 0);
        try (Socket s = new Socket(InetAddress.getLoopbackAddress(), app.port())) {
            OutputStream out = s.getOutputStream();
            out.write("GET /warm?x=1 HTTP/1.1\r\nHost: warm\r\nConnection: close\r\n\r\n"
                    .getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = s.getInputStream();
            in.readAllBytes();
        } finally {
            app.stop();
        }
    }

    private static void dns() throws Exception {
        Name zone = Name.fromString("warm.", Name.root);
        Message query = Message.newQuery(Record.newRecord(Name.fromString("a", zone), Type.SRV, DClass.IN));
        Message answer = new Message(query.toWire());
        answer.addRecord(new SOARecord(zone, DClass.IN, 5, Name.fromString("ns", zone),
                Name.fromString("hostmaster", zone), 1, 3600, 600, 86400, 5), 1);
        answer.toWire(512);
    }
}
