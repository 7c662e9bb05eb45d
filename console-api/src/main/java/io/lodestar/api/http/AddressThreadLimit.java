package io.lodestar.api.http;

import io.lodestar.api.limits.Limit;
import io.lodestar.error.LimitExceededException;
import io.lodestar.limits.CountsByAddress;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.function.Consumer;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.handler.HandlerWrapper;

/**
 * Bounds the requests of one client address being worked on at once ({@link
 * Limit#HTTP_THREADS_PER_ADDRESS}): one more is answered 429 naming the limit, at once and without
 * reading its body. A request counts while a thread works on it (a held long-poll, once suspended,
 * does not), so an address that promises bodies and never sends them holds at most its share of
 * the threads, and every other address is served. The address is the socket's peer; no header
 * changes it. (Jetty's own ThreadLimitHandler queues instead, but only inside a servlet context,
 * and the fast path runs before one.)
 */
public final class AddressThreadLimit extends HandlerWrapper {
    private final int perAddress;
    private final Consumer<Limit> refused;
    private final CountsByAddress<String> working;

    public AddressThreadLimit(int perAddress, Consumer<Limit> refused) {
        this.perAddress = perAddress;
        this.refused = refused;
        this.working = new CountsByAddress<>(perAddress);
    }

    @Override
    public void handle(String target, Request base, HttpServletRequest req, HttpServletResponse resp)
            throws IOException, ServletException {
        String address = req.getRemoteAddr();
        if (!working.tryAcquire(address)) {
            refused.accept(Limit.HTTP_THREADS_PER_ADDRESS);
            ErrorMapping.answer(
                    LimitExceededException.tooMany(
                            Limit.HTTP_THREADS_PER_ADDRESS.key(),
                            perAddress,
                            "this address has its most requests in progress"),
                    base,
                    resp);
            return;
        }
        try {
            super.handle(target, base, req, resp);
        } finally {
            working.release(address);
        }
    }
}
