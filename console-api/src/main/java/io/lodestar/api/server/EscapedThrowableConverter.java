package io.lodestar.api.server;

import ch.qos.logback.classic.pattern.ThrowableProxyConverter;
import ch.qos.logback.classic.spi.IThrowableProxy;
import ch.qos.logback.classic.spi.StackTraceElementProxy;

/**
 * Logback's {@code %ex}, a stack trace of one frame a line as usual, with the {@linkplain
 * ControlCharacters control characters escaped} in each exception's message (causes and suppressed
 * ones included): a message may quote what a client sent, and must not forge a line of its own.
 */
public final class EscapedThrowableConverter extends ThrowableProxyConverter {
    @Override
    protected String throwableProxyToString(IThrowableProxy proxy) {
        return super.throwableProxyToString(new Escaped(proxy));
    }

    /** The exception as logback sees it, its messages escaped. */
    private record Escaped(IThrowableProxy proxy) implements IThrowableProxy {
        @Override
        public String getMessage() {
            return ControlCharacters.escape(proxy.getMessage());
        }

        @Override
        public String getOverridingMessage() {
            return ControlCharacters.escape(proxy.getOverridingMessage());
        }

        @Override
        public String getClassName() {
            return proxy.getClassName();
        }

        @Override
        public StackTraceElementProxy[] getStackTraceElementProxyArray() {
            return proxy.getStackTraceElementProxyArray();
        }

        @Override
        public int getCommonFrames() {
            return proxy.getCommonFrames();
        }

        @Override
        public IThrowableProxy getCause() {
            return proxy.getCause() == null ? null : new Escaped(proxy.getCause());
        }

        @Override
        public IThrowableProxy[] getSuppressed() {
            IThrowableProxy[] suppressed = proxy.getSuppressed();
            if (suppressed == null) {
                return null;
            }
            IThrowableProxy[] escaped = new IThrowableProxy[suppressed.length];
            for (int i = 0; i < suppressed.length; i++) {
                escaped[i] = new Escaped(suppressed[i]);
            }
            return escaped;
        }

        @Override
        public boolean isCyclic() {
            return proxy.isCyclic();
        }
    }
}
