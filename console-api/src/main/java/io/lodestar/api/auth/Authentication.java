package io.lodestar.api.auth;

import io.lodestar.api.http.CheckedRequest;
import io.lodestar.api.http.RequestChecks;
import io.lodestar.error.UnauthenticatedException;
import java.util.Set;

/**
 * The check that every request proves its caller with an access token, on every entry point (it
 * runs in the one {@link RequestChecks} chain): the {@code accessToken} parameter, an {@code
 * Authorization: Bearer} header, or an {@code accessToken} header (how nacos-client 2.x/3.x sends it
 * in a gRPC request's metadata). Only logging in, the liveness and readiness probes, the metrics and
 * the gRPC health check are open, each by its exact path or type: any other spelling of a path
 * needs a token too. Nothing else is trusted: no header names a caller, no address is exempt.
 */
final class Authentication implements RequestChecks.Check {
    static final Set<String> OPEN = Set.of(
            Auth.LOGIN_PATH,
            Auth.OLD_LOGIN_PATH,
            Auth.V3_LOGIN_PATH,
            "/nacos/v1/console/health/liveness",
            "/nacos/v1/console/health/readiness",
            "/metrics",
            "HealthCheckRequest");
    private static final String BEARER = "Bearer ";

    private final Tokens tokens;

    Authentication(Tokens tokens) {
        this.tokens = tokens;
    }

    @Override
    public void check(CheckedRequest request) {
        if (OPEN.contains(request.operation())) {
            return;
        }
        String token = token(request);
        if (token == null || token.isEmpty()) {
            throw new UnauthenticatedException(
                    "no access token: log in at " + Auth.LOGIN_PATH + " and send its accessToken");
        }
        tokens.verify(token);
    }

    private static String token(CheckedRequest request) {
        String param = request.param("accessToken");
        if (param != null) {
            return param;
        }
        String authorization = request.header("Authorization");
        if (authorization != null && authorization.regionMatches(true, 0, BEARER, 0, BEARER.length())) {
            return authorization.substring(BEARER.length()).trim();
        }
        return request.header("accessToken");
    }
}
