package io.lodestar.api.auth;

import io.lodestar.api.request.Names;
import io.lodestar.api.request.Resource;
import io.lodestar.error.InvalidRequestException;

/**
 * What a permission is on. A request names a {@link Resource}; a permission names a pattern, as
 * Nacos writes them: {@code namespace:group:config/dataId} or {@code namespace:group:naming/service},
 * {@code *} matching any run of characters within its part, and a bare {@code namespace} meaning
 * {@code namespace:*:*} (what Nacos's console grants). Two resources are not data and are matched
 * only by their own patterns: {@value #CLUSTER} (cluster administration) and {@code
 * transfer:namespace} (import and export of a namespace's configs).
 *
 * <p>A request that names no group or no name (a search, a listing) is on all of them: it needs a
 * pattern whose part is {@code *}.
 */
public final class Resources {
    public static final String CLUSTER = "cluster";
    private static final String TRANSFER = "transfer:";
    private static final String ALL = "*";
    private static final int MAX_PATTERN = 512;

    private Resources() {}

    /** Refuses a pattern that could match nothing the server checks, naming what is wrong. */
    static void checkPattern(String pattern) {
        if (pattern == null || pattern.isEmpty()) {
            throw InvalidRequestException.missing("resource");
        }
        if (pattern.length() > MAX_PATTERN) {
            throw new InvalidRequestException("resource", "longer than " + MAX_PATTERN + " characters");
        }
        for (int i = 0; i < pattern.length(); i++) {
            if (Character.isISOControl(pattern.charAt(i))) {
                throw new InvalidRequestException("resource", "a control character at " + i);
            }
        }
        if (pattern.equals(CLUSTER) || pattern.startsWith(TRANSFER)) {
            return;
        }
        String[] parts = pattern.split(":", 3);
        if (parts.length == 2) {
            throw new InvalidRequestException(
                    "resource", "'" + pattern + "' is neither namespace nor namespace:group:kind/name");
        }
        if (parts.length == 3
                && !parts[2].equals(ALL)
                && !parts[2].startsWith("config/")
                && !parts[2].startsWith("naming/")) {
            throw new InvalidRequestException(
                    "resource", "'" + parts[2] + "' is neither *, config/name nor naming/name");
        }
    }

    /** Whether {@code pattern} (checked by {@link #checkPattern}) matches {@code resource}. */
    static boolean matches(String pattern, Resource resource) {
        if (resource.kind().equals(Resource.CLUSTER)) {
            return pattern.equals(CLUSTER);
        }
        if (resource.kind().equals(Resource.TRANSFER)) {
            return pattern.startsWith(TRANSFER)
                    && glob(namespace(pattern.substring(TRANSFER.length())), resource.namespace());
        }
        if (pattern.equals(CLUSTER) || pattern.startsWith(TRANSFER)) {
            return false;
        }
        int first = pattern.indexOf(':');
        if (first < 0) {
            return glob(namespace(pattern), resource.namespace());
        }
        int last = pattern.indexOf(':', first + 1);
        String what = pattern.substring(last + 1);
        if (!glob(namespace(pattern.substring(0, first)), resource.namespace())
                || !glob(pattern.substring(first + 1, last), resource.group())) {
            return false;
        }
        if (what.equals(ALL)) {
            return true;
        }
        int slash = what.indexOf('/');
        return what.substring(0, slash).equals(resource.kind()) && glob(what.substring(slash + 1), resource.name());
    }

    /** {@code *} matches any run of characters, everything else itself; linear, no regular expression. */
    static boolean glob(String pattern, String text) {
        int p = 0;
        int t = 0;
        int star = -1;
        int resume = 0;
        while (t < text.length()) {
            if (p < pattern.length() && pattern.charAt(p) == '*') {
                star = p++;
                resume = t;
            } else if (p < pattern.length() && pattern.charAt(p) == text.charAt(t)) {
                p++;
                t++;
            } else if (star >= 0) {
                p = star + 1;
                t = ++resume;
            } else {
                return false;
            }
        }
        while (p < pattern.length() && pattern.charAt(p) == '*') {
            p++;
        }
        return p == pattern.length();
    }

    /** A pattern's namespace as the requests' resources name it (the public one has several spellings). */
    private static String namespace(String namespace) {
        return Names.canonical(namespace);
    }
}
