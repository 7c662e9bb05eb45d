package io.lodestar.api.server;

import ch.qos.logback.classic.pattern.ClassicConverter;
import ch.qos.logback.classic.spi.ILoggingEvent;

/**
 * Logback's {@code %msg} with its {@linkplain ControlCharacters control characters escaped}, so
 * that a value a client supplied (a user name, a data id) cannot end the line and forge another.
 * An operator's own logback file can use it too: {@code <conversionRule conversionWord="escapedMsg"
 * class="io.lodestar.api.server.EscapedMessageConverter"/>}.
 */
public final class EscapedMessageConverter extends ClassicConverter {
    @Override
    public String convert(ILoggingEvent event) {
        return ControlCharacters.escape(event.getFormattedMessage());
    }
}
