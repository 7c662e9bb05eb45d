package io.lodestar.api.server;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.PatternLayout;
import ch.qos.logback.classic.spi.Configurator;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.ConsoleAppender;
import ch.qos.logback.core.encoder.Encoder;
import ch.qos.logback.core.encoder.LayoutWrappingEncoder;
import ch.qos.logback.core.spi.ContextAwareBase;

/**
 * The server's logging, set up in code: one line per event on stdout, a stack trace below it. A
 * message's control characters are escaped ({@link EscapedMessageConverter}), as are those of an
 * exception's message ({@link EscapedThrowableConverter}), so a name a client sent never forges a
 * line of its own, whichever call site logs it. Parsing an XML configuration
 * costs about 0.8 s of start-up (logback's Joran loads some 500 classes), a third of the time to
 * readiness. An operator's own file still wins: with {@code -Dlogback.configurationFile=...} (or a
 * {@code logback-test.xml} on a test classpath) this steps aside and logback reads that file.
 */
public final class LogSetup extends ContextAwareBase implements Configurator {
    static final String PATTERN =
            "%d{yyyy-MM-dd HH:mm:ss.SSS} %-5level [%thread] %logger{30} - %escapedMsg%n%escapedEx";

    @Override
    public ExecutionStatus configure(LoggerContext context) {
        if (System.getProperty("logback.configurationFile") != null
                || LogSetup.class.getClassLoader().getResource("logback-test.xml") != null) {
            return ExecutionStatus.INVOKE_NEXT_IF_ANY;
        }
        Encoder<ILoggingEvent> encoder = encoder(context);
        ConsoleAppender<ILoggingEvent> out = new ConsoleAppender<>();
        out.setContext(context);
        out.setName("OUT");
        out.setEncoder(encoder);
        out.start();
        Logger root = context.getLogger(Logger.ROOT_LOGGER_NAME);
        root.setLevel(Level.INFO);
        root.addAppender(out);
        // JRaft and bolt are chatty at INFO; their warnings and errors still show.
        context.getLogger("com.alipay").setLevel(Level.WARN);
        context.getLogger("com.alipay.sofa.common.log").setLevel(Level.ERROR);
        context.getLogger("org.eclipse.jetty").setLevel(Level.WARN);
        context.getLogger("io.javalin").setLevel(Level.WARN);
        return ExecutionStatus.DO_NOT_INVOKE_NEXT_IF_ANY;
    }

    /** How the server writes an event: {@link #PATTERN}, its message and exception escaped. */
    static Encoder<ILoggingEvent> encoder(LoggerContext context) {
        PatternLayout layout = new PatternLayout();
        layout.setContext(context);
        layout.getInstanceConverterMap().put("escapedMsg", EscapedMessageConverter::new);
        layout.getInstanceConverterMap().put("escapedEx", EscapedThrowableConverter::new);
        layout.setPattern(PATTERN);
        layout.start();
        LayoutWrappingEncoder<ILoggingEvent> encoder = new LayoutWrappingEncoder<>();
        encoder.setContext(context);
        encoder.setLayout(layout);
        encoder.start();
        return encoder;
    }
}
