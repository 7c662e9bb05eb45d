package io.lodestar.api.auth;

import io.lodestar.api.audit.AuditLog;
import io.lodestar.api.http.CheckedRequest;
import io.lodestar.api.http.RequestChecks;
import io.lodestar.error.ForbiddenException;
import java.util.List;

/**
 * The one check of who may do what, on every entry point (it runs in the one {@link
 * RequestChecks} chain). An operation {@link AccessRules} does not declare is refused, with
 * authentication on or off: nothing is served by default. With authentication on, every operation
 * but the {@link Access.Open open} ones proves its caller ({@link Authentication}) and the
 * caller's roles must grant what the operation's declaration asks; the admin may do everything.
 */
final class Authorization implements RequestChecks.Check {
    private final boolean enabled;
    private final Authentication authentication;
    private final Grants grants;
    private final AuditLog audit;

    Authorization(boolean enabled, Authentication authentication, Grants grants, AuditLog audit) {
        this.enabled = enabled;
        this.authentication = authentication;
        this.grants = grants;
        this.audit = audit;
    }

    /** Audits every write, and every request refused as unauthenticated or forbidden, however it ended. */
    @Override
    public void completed(CheckedRequest request, int status) {
        Access access = AccessRules.of(request.operation());
        boolean refused = access == null || status == 401 || status == 403;
        if (!refused && !writes(access, request.operation())) {
            return;
        }
        List<String> resources = List.of();
        if (access instanceof Access.On on) {
            try {
                resources = on.resources().apply(request).stream()
                        .map(Object::toString)
                        .toList();
            } catch (RuntimeException badInput) {
                // the request named nothing readable; it was refused for that
            }
        }
        audit.record(request.caller(), request.remoteAddr(), request.operation(), resources, status);
    }

    /** Whether an operation changes something: a write on its resources, or an administrative change. */
    private static boolean writes(Access access, String operation) {
        if (access instanceof Access.On on) {
            return on.action() == 'w';
        }
        return !(access instanceof Access.Open)
                && operation.contains(" /")
                && !operation.startsWith("GET ")
                && !operation.startsWith("WS ");
    }

    @Override
    public void check(CheckedRequest request) {
        Access access = AccessRules.of(request.operation());
        if (access == null) {
            throw new ForbiddenException("no permission is declared for '" + request.operation() + "': refused");
        }
        if (!enabled || access instanceof Access.Open) {
            return;
        }
        Principal caller = authentication.authenticate(request);
        request.caller(caller.username());
        if (caller.admin() || access instanceof Access.AnyUser) {
            return;
        }
        if (access instanceof Access.AdminOrSelf self) {
            if (!caller.username().equals(request.param(self.param()))) {
                throw refused(caller, "do this to another user");
            }
        } else if (access instanceof Access.On on) {
            for (Resources.Resource resource : on.resources().apply(request)) {
                if (!grants.permits(caller.username(), on.action(), resource)) {
                    throw refused(caller, (on.action() == 'r' ? "read " : "write ") + resource);
                }
            }
        } else {
            throw refused(caller, "do this: it takes the admin");
        }
    }

    private static ForbiddenException refused(Principal caller, String what) {
        return new ForbiddenException("'" + caller.username() + "' may not " + what);
    }
}
