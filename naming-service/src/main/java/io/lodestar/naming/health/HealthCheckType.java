package io.lodestar.naming.health;

/** How the server checks a persistent instance, like Nacos's cluster {@code healthChecker.type}. */
public enum HealthCheckType {
    /** Not checked by the server: the instance keeps whatever health it was given. */
    NONE,
    /** Healthy while a TCP connection to the instance can be opened. */
    TCP,
    /** Healthy while an HTTP GET of the configured path answers an expected status. */
    HTTP
}
