package io.lodestar.api.auth;

import io.lodestar.api.request.CheckedRequest;
import io.lodestar.error.UnauthenticatedException;

/**
 * Who a request comes from: the caller its access token proves, sent as the {@code accessToken}
 * parameter, an {@code Authorization: Bearer} header, or an {@code accessToken} header (how
 * nacos-client 2.x/3.x sends it in a gRPC request's metadata), or, on a WebSocket upgrade from a
 * browser, an offered subprotocol {@link Auth#WS_BEARER_PROTOCOL_PREFIX}{@code <token>}. Nothing else
 * is trusted: no header names a caller, no address is exempt.
 */
final class Authentication {
    private static final String BEARER = "Bearer ";

    private final Tokens tokens;

    Authentication(Tokens tokens) {
        this.tokens = tokens;
    }

    /** The caller, or {@link UnauthenticatedException} without a valid token. */
    Principal authenticate(CheckedRequest request) {
        String token = token(request);
        if (token == null || token.isEmpty()) {
            throw new UnauthenticatedException(
                    "no access token: log in at " + Auth.LOGIN_PATH + " and send its accessToken");
        }
        return tokens.verify(token);
    }

    /** The token the request carries, or null. */
    private static String token(CheckedRequest request) {
        String param = request.param("accessToken");
        if (param != null) {
            return param;
        }
        String authorization = request.header("Authorization");
        if (authorization != null && authorization.regionMatches(true, 0, BEARER, 0, BEARER.length())) {
            return authorization.substring(BEARER.length()).trim();
        }
        String header = request.header("accessToken");
        return header != null ? header : offeredProtocolToken(request.header("Sec-WebSocket-Protocol"));
    }

    /** The token in a {@code Sec-WebSocket-Protocol} offer ({@code a, lodestar.bearer.TOKEN, b}), or null. */
    static String offeredProtocolToken(String offered) {
        if (offered == null) {
            return null;
        }
        for (String protocol : offered.split(",")) {
            String p = protocol.trim();
            if (p.startsWith(Auth.WS_BEARER_PROTOCOL_PREFIX)) {
                return p.substring(Auth.WS_BEARER_PROTOCOL_PREFIX.length());
            }
        }
        return null;
    }
}
