package io.lodestar.api.auth;

import io.lodestar.api.http.CheckedRequest;
import io.lodestar.api.http.RequestChecks;
import io.lodestar.error.ForbiddenException;

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

    Authorization(boolean enabled, Authentication authentication, Grants grants) {
        this.enabled = enabled;
        this.authentication = authentication;
        this.grants = grants;
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
