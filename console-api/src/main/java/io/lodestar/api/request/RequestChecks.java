package io.lodestar.api.request;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.slf4j.LoggerFactory;

/**
 * The checks every request passes before its endpoint runs, whichever way it came in (Javalin's
 * routes, the HTTP fast paths and the gRPC API all run this one chain): a check refuses a request by throwing, and
 * the error mapping answers it. Authentication and request limits belong here.
 */
public final class RequestChecks {
    /** One check: looks at the request, throws to refuse it. */
    @FunctionalInterface
    public interface Check {
        void check(CheckedRequest request);

        /**
         * Told how a request ended, whether the checks let it through or refused it: {@code status}
         * is the HTTP status, or for gRPC 200 when served and else the error code answered.
         */
        default void completed(CheckedRequest request, int status) {}

        /**
         * Looks at the typed request the operation's parser built from {@code request}, before its
         * handler runs; throws to refuse it.
         */
        default void authorize(CheckedRequest request, Scoped typed) {}
    }

    private final List<Check> checks = new CopyOnWriteArrayList<>();

    /** Adds {@code check} to every entry point's chain; call before the server starts. */
    public RequestChecks add(Check check) {
        checks.add(check);
        return this;
    }

    /** Tells every check how {@code request} ended (see {@link Check#completed}); never throws. */
    public void completed(CheckedRequest request, int status) {
        for (Check c : checks) {
            try {
                c.completed(request, status);
            } catch (RuntimeException e) {
                LoggerFactory.getLogger(RequestChecks.class).error("a check failed on a completed request", e);
            }
        }
    }

    /**
     * Runs every check's {@link Check#authorize} on the typed request parsed from {@code request},
     * which the handler will execute and the audit line name; the first that refuses it throws.
     */
    public void authorize(CheckedRequest request, Scoped typed) {
        request.typed(typed);
        for (Check c : checks) {
            c.authorize(request, typed);
        }
    }

    /** Runs every check on {@code request}; the first that refuses it throws. */
    public void check(CheckedRequest request) {
        for (Check c : checks) {
            c.check(request);
        }
    }
}
