package io.lodestar.api.auth;

import io.lodestar.api.request.CheckedRequest;
import io.lodestar.api.request.RequestChecks;
import io.lodestar.error.ForbiddenException;
import java.net.URI;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * The origins whose web pages may call the node from a browser: its own, and those the operator
 * lists. A browser names the page's origin in an {@code Origin} header on every cross-origin
 * request, every WebSocket upgrade and every non-GET request; Nacos's clients, curl and scrapers
 * send none, so they are never refused here. Without this check a page on any site could drive a
 * logged-in operator's browser against the node, or open the push channel with it, and with
 * authentication off any page a user opens could read and write the node.
 */
public final class BrowserOrigins implements RequestChecks.Check {
    private final Set<String> allowed;

    private BrowserOrigins(Set<String> allowed) {
        this.allowed = allowed;
    }

    /**
     * The node's own origin and {@code origins} ({@code scheme://host[:port]} each, as a browser
     * sends it); {@code *} allows every origin. A malformed entry is an {@link
     * IllegalArgumentException} naming it.
     */
    public static BrowserOrigins allowing(List<String> origins) {
        Set<String> normalized = new HashSet<>();
        for (String o : origins) {
            String n = o.equals("*") ? o : normalize(o);
            if (n == null) {
                throw new IllegalArgumentException(
                        "'" + o + "' is not an origin: scheme://host[:port], as a browser sends it");
            }
            normalized.add(n);
        }
        return new BrowserOrigins(Set.copyOf(normalized));
    }

    @Override
    public void check(CheckedRequest request) {
        String origin = request.header("Origin");
        if (origin == null || !fromBrowser(request.operation()) || allowed.contains("*")) {
            return;
        }
        String normalized = normalize(origin); // null for "null" (a sandboxed page or a file) and the malformed
        if (normalized != null && (allowed.contains(normalized) || sameOrigin(normalized, request.header("Host")))) {
            return;
        }
        String shown = normalized != null ? normalized : origin.length() <= 100 ? origin : origin.substring(0, 100);
        throw new ForbiddenException("a page from " + shown + " may not call this node: it serves browsers"
                + " from its own origin and those given with --allowed-origins");
    }

    /** HTTP routes and WebSocket upgrades are what a browser reaches; gRPC is not. */
    private static boolean fromBrowser(String operation) {
        return operation.startsWith("WS ") || operation.contains(" /");
    }

    /** The origin's host and port against the Host the request was sent to (the default port implied). */
    private static boolean sameOrigin(String origin, String host) {
        if (host == null) {
            return false;
        }
        String hostOnly = origin.substring(origin.indexOf("://") + 3);
        String withPort = host.toLowerCase(Locale.ROOT);
        String defaultPort = origin.startsWith("https://") ? ":443" : ":80";
        return hostOnly.equals(withPort)
                || hostOnly.equals(withPort + defaultPort)
                || (hostOnly + defaultPort).equals(withPort);
    }

    /** {@code scheme://host[:port]} in lower case, the port only if given; null when it is not an http(s) origin. */
    static String normalize(String origin) {
        URI uri;
        try {
            uri = new URI(origin.trim());
        } catch (Exception e) {
            return null;
        }
        String scheme = uri.getScheme();
        if (scheme == null
                || !(scheme.equalsIgnoreCase("http") || scheme.equalsIgnoreCase("https"))
                || uri.getHost() == null
                || uri.getUserInfo() != null
                || (uri.getRawPath() != null
                        && !uri.getRawPath().isEmpty()
                        && !uri.getRawPath().equals("/"))
                || uri.getRawQuery() != null
                || uri.getRawFragment() != null) {
            return null;
        }
        String host = uri.getHost().toLowerCase(Locale.ROOT);
        return scheme.toLowerCase(Locale.ROOT) + "://" + host + (uri.getPort() == -1 ? "" : ":" + uri.getPort());
    }
}
