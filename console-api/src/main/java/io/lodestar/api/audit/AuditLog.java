package io.lodestar.api.audit;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.encoder.PatternLayoutEncoder;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.rolling.RollingFileAppender;
import ch.qos.logback.core.rolling.SizeAndTimeBasedRollingPolicy;
import ch.qos.logback.core.util.FileSize;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import io.lodestar.api.json.Json;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.LoggerFactory;

/**
 * The audit log: one JSON line per write and per refused request, in its own file {@code
 * <data-dir>/audit/audit.log} (logback rolls it daily and at 100 MiB, and keeps 30 days within 1
 * GiB): the time, who (the logged-in user, absent with authentication off or before it proved
 * anyone), from where (the socket's address), the entry point, the operation, the resources it
 * named and the outcome (the HTTP status, or the gRPC error code). Never a config's content, a
 * password or a token.
 */
public final class AuditLog implements AutoCloseable {
    private static final JsonFactory JSON = Json.MAPPER.getFactory();
    private static final AtomicInteger INSTANCES = new AtomicInteger();

    private final Logger logger;
    private final RollingFileAppender<ILoggingEvent> appender;

    private AuditLog(Logger logger, RollingFileAppender<ILoggingEvent> appender) {
        this.logger = logger;
        this.appender = appender;
    }

    /** The audit log of the node whose data directory is {@code dataDir}. */
    public static AuditLog open(Path dataDir) {
        LoggerContext context = (LoggerContext) LoggerFactory.getILoggerFactory();
        Path dir = dataDir.resolve("audit");
        PatternLayoutEncoder encoder = new PatternLayoutEncoder();
        encoder.setContext(context);
        encoder.setPattern("%msg%n");
        encoder.start();
        RollingFileAppender<ILoggingEvent> appender = new RollingFileAppender<>();
        appender.setContext(context);
        appender.setName("AUDIT-" + dataDir);
        appender.setFile(dir.resolve("audit.log").toString());
        SizeAndTimeBasedRollingPolicy<ILoggingEvent> policy = new SizeAndTimeBasedRollingPolicy<>();
        policy.setContext(context);
        policy.setParent(appender);
        policy.setFileNamePattern(dir.resolve("audit.%d{yyyy-MM-dd}.%i.log").toString());
        policy.setMaxFileSize(FileSize.valueOf("100MB"));
        policy.setMaxHistory(30);
        policy.setTotalSizeCap(FileSize.valueOf("1GB"));
        policy.start();
        appender.setRollingPolicy(policy);
        appender.setEncoder(encoder);
        appender.start();
        // one logger per node: the tests run several nodes in one JVM, each with its own file
        Logger logger = context.getLogger("lodestar.audit." + INSTANCES.incrementAndGet());
        logger.setAdditive(false);
        logger.setLevel(ch.qos.logback.classic.Level.INFO);
        logger.addAppender(appender);
        return new AuditLog(logger, appender);
    }

    /** Resources named on one line; a request naming more is counted, not listed in full. */
    static final int MAX_RESOURCES = 32;
    /** Characters kept of one field; a dataId or a principal a client made huge is cut. */
    static final int MAX_FIELD_CHARS = 512;

    /**
     * Records one event. Its size is bounded (at most {@value #MAX_RESOURCES} resources of at most
     * {@value #MAX_FIELD_CHARS} characters each, the same for every other field), so a request
     * cannot write a line of its own choosing's size and roll the log's history away. {@code principal} may be null; {@code operation} is as {@code
     * AccessRules} names it, its entry point read from it.
     */
    public void record(String principal, String source, String operation, List<String> resources, int outcome) {
        // written field by field: building a map for Jackson to walk cost more than the write itself
        StringWriter text = new StringWriter(256);
        try (JsonGenerator line = JSON.createGenerator(text)) {
            line.writeStartObject();
            line.writeStringField("time", Instant.now().toString());
            if (principal != null) {
                line.writeStringField("principal", bounded(principal));
            }
            line.writeStringField("source", bounded(source));
            line.writeStringField(
                    "entryPoint",
                    operation.startsWith("WS ") ? "websocket" : operation.contains(" /") ? "http" : "grpc");
            line.writeStringField("operation", bounded(operation));
            line.writeArrayFieldStart("resources");
            for (int i = 0; i < Math.min(resources.size(), MAX_RESOURCES); i++) {
                line.writeString(bounded(resources.get(i)));
            }
            line.writeEndArray();
            if (resources.size() > MAX_RESOURCES) {
                line.writeNumberField("resourcesNotListed", resources.size() - MAX_RESOURCES);
            }
            line.writeNumberField("outcome", outcome);
            line.writeEndObject();
        } catch (IOException e) {
            throw new UncheckedIOException("an audit line did not serialize", e); // a StringWriter does not fail
        }
        logger.info(text.toString());
    }

    private static String bounded(String field) {
        return field.length() <= MAX_FIELD_CHARS
                ? field
                : field.substring(0, MAX_FIELD_CHARS) + "...(" + field.length() + " chars)";
    }

    @Override
    public void close() {
        logger.detachAppender(appender);
        appender.stop();
    }
}
