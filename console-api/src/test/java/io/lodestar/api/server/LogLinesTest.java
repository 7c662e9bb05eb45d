package io.lodestar.api.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.AppenderBase;
import ch.qos.logback.core.encoder.Encoder;
import io.lodestar.api.auth.Auth;
import io.lodestar.api.auth.AuthServer;
import io.lodestar.kv.testing.Await;
import java.io.ByteArrayOutputStream;
import java.net.URLEncoder;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/**
 * The server's log lines as {@link LogSetup} writes them: whatever a client sends, one event is one
 * line (a stack trace follows it on lines of its own).
 */
class LogLinesTest {
    private static final String FORGED = "2026-12-05 12:00:00 WARN forged";

    @TempDir
    Path dir;

    /** What one logger logs, written as the server's console writes it. */
    private static final class Captured extends AppenderBase<ILoggingEvent> implements AutoCloseable {
        private final Encoder<ILoggingEvent> encoder;
        private final Logger logger;
        private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();

        Captured(String loggerName) {
            LoggerContext context = (LoggerContext) LoggerFactory.getILoggerFactory();
            this.encoder = LogSetup.encoder(context);
            this.logger = context.getLogger(loggerName);
            setContext(context);
            start();
            logger.addAppender(this);
        }

        @Override
        protected synchronized void append(ILoggingEvent event) {
            bytes.writeBytes(encoder.encode(event));
        }

        synchronized String text() {
            return bytes.toString(StandardCharsets.UTF_8);
        }

        @Override
        public void close() {
            logger.detachAppender(this);
            stop();
        }
    }

    @Test
    void aUserNameWithALineBreakInAFailedLoginIsLoggedAsOneLine() throws Exception {
        String crafted = "x\n" + FORGED;
        try (AuthServer s = AuthServer.start(dir);
                Captured auth = new Captured(Auth.class.getName())) {
            HttpResponse<String> r = s.send(
                    "POST",
                    Auth.LOGIN_PATH,
                    "username=" + URLEncoder.encode(crafted, StandardCharsets.UTF_8) + "&password=whatever-password",
                    Map.of());
            assertEquals(403, r.statusCode(), r.body());
            Await.until("the failed login is logged", () -> auth.text().contains("failed login"));
            String text = auth.text();
            assertEquals(text.length() - 1, text.indexOf('\n'), "exactly one line: " + text);
            assertTrue(text.contains("failed login as 'x\\n" + FORGED + "' from 127.0.0.1"), text);
        }
    }

    @Test
    void everyControlCharacterInAMessageIsEscapedAndOnlyThere() {
        try (Captured captured = new Captured("lodestar.test.escaping")) {
            LoggerFactory.getLogger("lodestar.test.escaping")
                    .warn("name '{}'", "a\r\nb\tc\u001b[31md\u0000e\u0085f\u2028g\\n");
            assertTrue(
                    captured.text()
                            .endsWith(" WARN  [main] lodestar.test.escaping - "
                                    + "name 'a\\r\\nb\\tc\\u001b[31md\\u0000e\\u0085f\\u2028g\\n'\n"),
                    captured.text());
        }
    }

    @Test
    void aStackTraceStaysReadableAndItsMessagesCannotForgeALine() {
        try (Captured captured = new Captured("lodestar.test.trace")) {
            Exception cause = new IllegalArgumentException("cause\r\n" + FORGED);
            LoggerFactory.getLogger("lodestar.test.trace")
                    .error("request failed", new IllegalStateException("top\n" + FORGED, cause));
            List<String> lines = captured.text().lines().toList();
            assertTrue(lines.get(0).endsWith(" - request failed"), lines.get(0));
            assertEquals("java.lang.IllegalStateException: top\\n" + FORGED, lines.get(1));
            assertTrue(lines.get(2).startsWith("\tat io.lodestar.api.server.LogLinesTest."), lines.get(2));
            assertTrue(
                    lines.contains("Caused by: java.lang.IllegalArgumentException: cause\\r\\n" + FORGED),
                    String.join("\n", lines));
            assertFalse(lines.stream().anyMatch(l -> l.startsWith(FORGED)), String.join("\n", lines));
        }
    }
}
