package io.lodestar.config.namespace;

import io.lodestar.error.ErrorKind;
import io.lodestar.error.LodestarException;

/** A delete of a namespace that still holds configs: nothing was written. */
public final class NamespaceNotEmptyException extends LodestarException {
    private static final long serialVersionUID = 1L;
    private final String namespaceId;
    private final long configCount;

    public NamespaceNotEmptyException(String namespaceId, long configCount) {
        super(
                ErrorKind.CONFLICT,
                "namespaceId",
                "namespaceId: namespace '" + namespaceId + "' still holds " + configCount + " config"
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
