package io.lodestar.api.metrics;

import io.lodestar.error.UnauthenticatedException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;

/**
 * Who may read {@code /metrics}: anyone (the default, as Prometheus scrapers expect), or only a
 * scraper presenting the operator's token as {@code Authorization: Bearer TOKEN} (Prometheus's
 * {@code authorization.credentials_file}). The metrics name no config, service or user, but they
 * do show the node's load, limits and cluster state.
 */
public final class ScrapeToken {
    private static final String BEARER = "Bearer ";
    private final byte[] token; // null: open

    private ScrapeToken(byte[] token) {
        this.token = token;
    }

    /** {@code /metrics} open to every caller. */
    public static ScrapeToken open() {
        return new ScrapeToken(null);
    }

    /** {@code /metrics} only for a caller presenting {@code token}; null means open. */
    public static ScrapeToken of(byte[] token) {
        if (token != null && token.length == 0) {
            throw new IllegalArgumentException("the metrics token is empty");
        }
        return new ScrapeToken(token == null ? null : token.clone());
    }

    /** Passes if no token is set or {@code authorization} presents it, else throws {@link UnauthenticatedException}. */
    void check(String authorization) {
        if (token == null) {
            return;
        }
        if (authorization == null || !authorization.regionMatches(true, 0, BEARER, 0, BEARER.length())) {
            throw new UnauthenticatedException("/metrics needs the bearer token set with --metrics-token-file");
        }
        byte[] given = authorization.substring(BEARER.length()).trim().getBytes(StandardCharsets.UTF_8);
        if (!MessageDigest.isEqual(given, token)) { // constant time: the comparison says nothing of the token
            throw new UnauthenticatedException(
                    "/metrics: the bearer token is not the one set with --metrics-token-file");
        }
    }
}
