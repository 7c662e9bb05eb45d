package io.lodestar.config.namespace;

/** A namespace with the number of configs in it, as read from this node's replica. */
public record NamespaceUsage(Namespace namespace, long configCount) {}
