package io.lodestar.naming.model;

/**
 * How the server probes a cluster's persistent instances. {@code NONE} leaves their health to the
 * operator ({@code PUT /health/instance}); ephemeral instances follow their heartbeats whatever the
 * type.
 */
public enum CheckerType {
    NONE,
    TCP,
    HTTP
}
