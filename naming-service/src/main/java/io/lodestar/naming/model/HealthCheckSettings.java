package io.lodestar.naming.model;

import io.lodestar.error.InvalidRequestException;
import java.util.Locale;

/**
 * How one cluster's persistent instances are probed (Nacos's cluster health checker).
 *
 * @param type            the probe; {@link CheckerType#NONE} lets operators set health by hand
 * @param httpPath        the path an HTTP probe requests; starts with {@code /}; blank is {@code /}
 * @param checkPort       the port probed when {@code useInstancePort} is false (Nacos's {@code checkPort})
 * @param useInstancePort probe each instance's own port (Nacos's {@code useInstancePort4Check})
 * @param expectedCodes   the HTTP statuses that count as healthy: comma-separated codes ({@code 200})
 *                        or classes ({@code 2xx}); blank is {@code 2xx}
 */
public record HealthCheckSettings(
        CheckerType type, String httpPath, int checkPort, boolean useInstancePort, String expectedCodes) {
    public static final int MAX_PATH = 1024;
    /** Nacos's default: a TCP probe of each instance's own port. */
    public static final HealthCheckSettings DEFAULT = new HealthCheckSettings(CheckerType.TCP, "/", 80, true, "2xx");

    public HealthCheckSettings {
        if (type == null) {
            throw new InvalidRequestException("healthChecker.type", "is required (NONE, TCP or HTTP)");
        }
        httpPath = httpPath == null || httpPath.isBlank() ? "/" : httpPath;
        if (httpPath.charAt(0) != '/'
                || httpPath.length() > MAX_PATH
                || httpPath.chars().anyMatch(c -> c <= ' ' || c == 0x7f)) {
            throw new InvalidRequestException(
                    "healthChecker.path",
                    "must start with '/', hold no spaces or control characters and be at most " + MAX_PATH
                            + " characters");
        }
        if (checkPort < 0 || checkPort > NamingValidation.MAX_PORT || (!useInstancePort && checkPort == 0)) {
            throw new InvalidRequestException(
                    "checkPort", checkPort + " is out of range 1.." + NamingValidation.MAX_PORT);
        }
        expectedCodes = expectedCodes == null || expectedCodes.isBlank() ? "2xx" : expectedCodes.replace(" ", "");
        for (String token : expectedCodes.split(",", -1)) {
            if (!validCodeToken(token)) {
                throw new InvalidRequestException(
                        "healthChecker.expectedResponseCode",
                        "'" + expectedCodes + "' is not a list of status codes (200) or classes (2xx)");
            }
        }
    }

    public static HealthCheckSettings of(CheckerType type) {
        return new HealthCheckSettings(
                type, DEFAULT.httpPath, DEFAULT.checkPort, DEFAULT.useInstancePort, DEFAULT.expectedCodes);
    }

    /** The port to probe for {@code instance}. */
    public int portFor(Instance instance) {
        return useInstancePort ? instance.port() : checkPort;
    }

    /** True when an HTTP probe answering {@code status} counts as healthy. */
    public boolean expects(int status) {
        for (String token : expectedCodes.split(",")) {
            String t = token.toLowerCase(Locale.ROOT);
            if (t.endsWith("xx") ? status / 100 == t.charAt(0) - '0' : status == Integer.parseInt(t)) {
                return true;
            }
        }
        return false;
    }

    private static boolean validCodeToken(String token) {
        if (token.length() != 3) {
            return false;
        }
        String t = token.toLowerCase(Locale.ROOT);
        char first = t.charAt(0);
        if (first < '1' || first > '5') {
            return false;
        }
        if (t.endsWith("xx")) {
            return true;
        }
        return Character.isDigit(t.charAt(1)) && Character.isDigit(t.charAt(2));
    }
}
