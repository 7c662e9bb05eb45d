package io.lodestar.config.namespace;

/** A delete of a namespace that still holds configs: nothing was written. */
public final class NamespaceNotEmptyException extends RuntimeException {
    private static final long serialVersionUID = 1L;
    private final String namespaceId;
    private final long configCount;

    public NamespaceNotEmptyException(String namespaceId, long configCount) {
        super("namespace '" + namespaceId + "' still holds " + configCount + " config"
                + (configCount == 1 ? "" : "s") + ": delete them first");
        this.namespaceId = namespaceId;
        this.configCount = configCount;
    }

    public String namespaceId() {
        return namespaceId;
    }

    public long configCount() {
        return configCount;
    }
}
