package io.lodestar.naming.health;

import io.lodestar.error.InvalidRequestException;
import io.lodestar.naming.model.CheckerType;
import java.time.Duration;
import java.util.Set;

/**
 * How one target is probed and how many results in a row change its status.
 *
 * <p>Defaults ({@link #tcp()}, {@link #http(String)}): probe every {@value #DEFAULT_INTERVAL_MS}
 * ms (each wait drawn from ±{@value HealthChecker#JITTER_PERCENT}% of it, see {@link
 * HealthChecker}), give up on a probe after {@value #DEFAULT_TIMEOUT_MS} ms, mark a healthy
 * instance unhealthy after {@value #DEFAULT_FAILURE_THRESHOLD} failures in a row and an unhealthy
 * one healthy after {@value #DEFAULT_SUCCESS_THRESHOLD} success. Why: one lost SYN or one slow
 * answer from a busy instance must not pull it out of every client's list (every
 * client then stops using a healthy instance until the next probes and pushes bring it back), while a recovered instance should take traffic again
 * at once: an open port or a 2xx is strong evidence, and a flapping instance is still removed
 * within three failed probes. Nacos uses 3 and 3; Kubernetes probes use 3 and 1, as here.
 *
 * @param type NONE (not probed), TCP or HTTP
 * @param port the port to probe; 0 means the instance's own port
 * @param path HTTP only: the absolute path (may carry a {@code ?query}) to GET
 * @param expectedStatuses HTTP only: the statuses that count as healthy; empty means any 2xx
 * @param timeout how long a probe may take before it counts as a failure
 * @param interval the mean time from one probe of a target to its next
 * @param failureThreshold failures in a row that flip a healthy target to unhealthy
 * @param successThreshold successes in a row that flip an unhealthy target to healthy
 */
public record ProbeSettings(
        CheckerType type,
        int port,
        String path,
        Set<Integer> expectedStatuses,
        Duration timeout,
        Duration interval,
        int failureThreshold,
        int successThreshold) {
    public static final long DEFAULT_INTERVAL_MS = 5_000;
    public static final long DEFAULT_TIMEOUT_MS = 2_000;
    public static final int DEFAULT_FAILURE_THRESHOLD = 3;
    public static final int DEFAULT_SUCCESS_THRESHOLD = 1;

    /** Not probed: the instance keeps the health it was registered or last set with. */
    public static final ProbeSettings NONE = new ProbeSettings(
            CheckerType.NONE,
            0,
            "/",
            Set.of(),
            Duration.ofMillis(DEFAULT_TIMEOUT_MS),
            Duration.ofMillis(DEFAULT_INTERVAL_MS),
            DEFAULT_FAILURE_THRESHOLD,
            DEFAULT_SUCCESS_THRESHOLD);

    /** Validates; {@link InvalidRequestException} names the offending field. */
    public ProbeSettings {
        if (type == null) {
            throw new InvalidRequestException("healthChecker.type", "is required (NONE, TCP or HTTP)");
        }
        if (port < 0 || port > 65_535) {
            throw new InvalidRequestException("healthChecker.port", port + " is not a port (0 = the instance's port)");
        }
        path = path == null || path.isEmpty() ? "/" : path;
        if (!path.startsWith("/")) {
            throw new InvalidRequestException("healthChecker.path", "must start with '/': " + path);
        }
        expectedStatuses = expectedStatuses == null ? Set.of() : Set.copyOf(expectedStatuses);
        for (int status : expectedStatuses) {
            if (status < 100 || status > 599) {
                throw new InvalidRequestException(
                        "healthChecker.expectedResponseCode", status + " is not an HTTP status");
            }
        }
        if (timeout == null || timeout.isNegative() || timeout.isZero()) {
            throw new InvalidRequestException("healthChecker.timeout", "must be positive: " + timeout);
        }
        if (interval == null || interval.isNegative() || interval.isZero()) {
            throw new InvalidRequestException("healthChecker.interval", "must be positive: " + interval);
        }
        if (failureThreshold < 1) {
            throw new InvalidRequestException(
                    "healthChecker.failureThreshold", "must be at least 1: " + failureThreshold);
        }
        if (successThreshold < 1) {
            throw new InvalidRequestException(
                    "healthChecker.successThreshold", "must be at least 1: " + successThreshold);
        }
    }

    /** A TCP check of the instance's port with the default timing and thresholds. */
    public static ProbeSettings tcp() {
        return NONE.withType(CheckerType.TCP);
    }

    /** An HTTP check of {@code path} on the instance's port, any 2xx healthy, default timing and thresholds. */
    public static ProbeSettings http(String path) {
        return new ProbeSettings(
                CheckerType.HTTP,
                0,
                path,
                Set.of(),
                NONE.timeout,
                NONE.interval,
                NONE.failureThreshold,
                NONE.successThreshold);
    }

    public ProbeSettings withType(CheckerType newType) {
        return new ProbeSettings(
                newType, port, path, expectedStatuses, timeout, interval, failureThreshold, successThreshold);
    }

    public ProbeSettings withPort(int newPort) {
        return new ProbeSettings(
                type, newPort, path, expectedStatuses, timeout, interval, failureThreshold, successThreshold);
    }

    public ProbeSettings withExpectedStatuses(Set<Integer> statuses) {
        return new ProbeSettings(type, port, path, statuses, timeout, interval, failureThreshold, successThreshold);
    }

    public ProbeSettings withTiming(Duration newTimeout, Duration newInterval) {
        return new ProbeSettings(
                type, port, path, expectedStatuses, newTimeout, newInterval, failureThreshold, successThreshold);
    }

    public ProbeSettings withThresholds(int failures, int successes) {
        return new ProbeSettings(type, port, path, expectedStatuses, timeout, interval, failures, successes);
    }

    /** Whether an HTTP answer with {@code status} counts as healthy. */
    public boolean expects(int status) {
        return expectedStatuses.isEmpty() ? status >= 200 && status < 300 : expectedStatuses.contains(status);
    }

    /** The port a target registered on {@code instancePort} is probed on. */
    public int portFor(int instancePort) {
        return port == 0 ? instancePort : port;
    }
}
