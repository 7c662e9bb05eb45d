package io.lodestar.api.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.ThrowableProxy;
import ch.qos.logback.core.read.ListAppender;
import java.util.List;
import java.util.concurrent.CompletionException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

class ErrorMappingTest {
    private static final Pattern ID = Pattern.compile("internal error ([0-9a-f]{16}): ");
    private static final String SECRET = "/var/lib/lodestar/kv/000042.sst: db.password=hunter2";

    private final Logger logger = (Logger) LoggerFactory.getLogger(ErrorMapping.class);
    private final ListAppender<ILoggingEvent> lines = new ListAppender<>();

    @BeforeEach
    void capture() {
        lines.start();
        logger.addAppender(lines);
    }

    @AfterEach
    void release() {
        logger.detachAppender(lines);
    }

    @Test
    void anUnexpectedErrorAnswersAnIdAndLogsTheDetailUnderIt() {
        RuntimeException bug = new IllegalStateException(SECRET);
        List<String> answers = List.of(
                ErrorMapping.map(new CompletionException(bug), "POST /nacos/v1/cs/configs")
                        .message(),
                ErrorMapping.v2(bug, "POST /nacos/v2/cs/config").data(),
                ErrorMapping.grpc(bug, "ConfigPublishRequest", "ConfigPublishRequest")
                        .message());

        assertEquals(500, ErrorMapping.map(bug, "GET /x").status());
        assertEquals(3, answers.size());
        for (int i = 0; i < answers.size(); i++) {
            String answer = answers.get(i);
            assertFalse(answer.contains("hunter2") || answer.contains("IllegalState"), answer);
            Matcher id = ID.matcher(answer);
            assertTrue(id.lookingAt(), answer);
            ILoggingEvent line = lines.list.get(i);
            assertTrue(line.getFormattedMessage().contains("error id " + id.group(1)), line.getFormattedMessage());
            assertEquals(bug, ((ThrowableProxy) line.getThrowableProxy()).getThrowable());
        }
    }

    @Test
    void eachFailureGetsItsOwnId() {
        String first = ErrorMapping.map(new IllegalStateException(), "GET /x").message();
        String second = ErrorMapping.map(new IllegalStateException(), "GET /x").message();
        assertFalse(first.equals(second), first);
    }
}
