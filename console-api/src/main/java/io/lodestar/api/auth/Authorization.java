package io.lodestar.api.auth;

import io.lodestar.api.audit.AuditLog;
import io.lodestar.api.request.CheckedRequest;
import io.lodestar.api.request.RequestChecks;
import io.lodestar.api.request.Resource;
import io.lodestar.api.request.Scoped;
import io.lodestar.error.ForbiddenException;
import java.util.List;

/**
 * The one check of who may do what, on every entry point (it runs in the one {@link
 * RequestChecks} chain). An operation {@link AccessRules} does not declare is refused, with
 * authentication on or off: nothing is served by default. With authentication on, every operation
 * but the {@link Access.Open open} ones proves its caller ({@link Authentication}) before anything
 * else; the caller's roles must then grant what the operation's declaration asks, on the resources
 * of the typed request its parser built (checked in {@link #authorize}, after the parse and before
 * the handler); the admin may do everything.
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

    /**
     * Audits every write, and every request refused as unauthenticated or forbidden, however it
     * ended, naming the resources of its typed request: the ones the handler acted on.
     */
    @Override
    public void completed(CheckedRequest request, int status) {
        Access access = AccessRules.of(request.operation());
        boolean refused = access == null || status == 401 || status == 403;
        if (!refused && !writes(access, request.operation())) {
            return;
        }
        Scoped typed = request.typed();
        List<String> resources = typed == null
                ? List.of()
                : typed.resources().stream().map(Resource::toString).toList();
        audit.record(request.caller(), request.remoteAddr(), request.operation(), resources, status);
    }

    /** Whether an operation changes something: a write on its resources, or an administrative change. */
    private static boolean writes(Access access, String operation) {
        if (access instanceof Access.OnResources on) {
            return on.action() == 'w';
        }
        if (access instanceof Access.OnCluster on) {
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
        if (caller.admin() || access instanceof Access.AnyUser || access instanceof Access.OnResources) {
            return; // the resources are checked on the typed request (authorize)
        }
        if (access instanceof Access.AdminOrSelf self) {
            if (!caller.username().equals(request.param(self.param()))) {
                throw refused(caller.username(), "do this to another user");
            }
        } else if (access instanceof Access.OnCluster on) {
            permit(caller.username(), on.action(), Resource.cluster());
        } else {
            throw refused(caller.username(), "do this: it takes the admin");
        }
    }

    @Override
    public void authorize(CheckedRequest request, Scoped typed) {
        if (!enabled || !(AccessRules.of(request.operation()) instanceof Access.OnResources on)) {
            return; // decided in check()
        }
        String caller = request.caller();
        if (grants.isAdmin(caller)) {
            return;
        }
        for (Resource resource : typed.resources()) {
            permit(caller, on.action(), resource);
        }
    }

    private void permit(String caller, char action, Resource resource) {
        if (!grants.permits(caller, action, resource)) {
            throw refused(caller, (action == 'r' ? "read " : "write ") + resource);
        }
    }

    private static ForbiddenException refused(String caller, String what) {
        return new ForbiddenException("'" + caller + "' may not " + what);
    }
}
