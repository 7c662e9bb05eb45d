package io.lodestar.api.http;

import io.lodestar.api.limits.Limit;
import io.lodestar.error.LimitExceededException;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.function.Consumer;
import org.eclipse.jetty.server.HttpInput;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.handler.HandlerWrapper;

/**
 * Bounds every request body to {@link Limit#HTTP_BODY_BYTES}, whoever reads it and however it is
 * sent: a declared length over the limit is answered 413 without the body being read (Jetty dispatches
 * the request once its first bytes arrive), and a
 * body without one (chunked) fails its reader with {@link LimitExceededException} (413 through
 * {@link ErrorMapping}) at the first chunk past the limit, and the connection closes after that
 * answer, the rest unread. So nothing, authenticated or not, makes
 * the node hold more than the limit of one body, and the check that reads a form body for its token
 * cannot be made to read more.
 */
public final class BodyLimit extends HandlerWrapper {
    private final long maxBytes;
    private final Consumer<Limit> refused;

    public BodyLimit(long maxBytes, Consumer<Limit> refused) {
        this.maxBytes = maxBytes;
        this.refused = refused;
    }

    @Override
    public void handle(String target, Request base, HttpServletRequest req, HttpServletResponse resp)
            throws IOException, ServletException {
        if (req.getContentLengthLong() > maxBytes) {
            refused.accept(Limit.HTTP_BODY_BYTES);
            resp.setHeader("Connection", "close"); // the body is not read
            ErrorMapping.answer(tooLarge(), base, resp);
            return;
        }
        if (req.getContentLengthLong() < 0) { // no declared length: count what arrives
            base.getHttpInput().addInterceptor(new Counting(resp));
        }
        super.handle(target, base, req, resp);
    }

    private LimitExceededException tooLarge() {
        return LimitExceededException.tooLarge(Limit.HTTP_BODY_BYTES.key(), maxBytes, "the request body");
    }

    /** Counts a body's bytes as they arrive, failing the read past the limit. */
    private final class Counting implements HttpInput.Interceptor {
        private final HttpServletResponse response;
        private long read;

        Counting(HttpServletResponse response) {
            this.response = response;
        }

        @Override
        public HttpInput.Content readFrom(HttpInput.Content content) {
            if (!content.isSpecial()) {
                read += content.remaining();
                if (read > maxBytes) {
                    refused.accept(Limit.HTTP_BODY_BYTES);
                    // Jetty would otherwise read the rest, however long, to keep the connection
                    response.setHeader("Connection", "close");
                    throw tooLarge();
                }
            }
            return content;
        }
    }
}
