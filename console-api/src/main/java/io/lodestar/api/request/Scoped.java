package io.lodestar.api.request;

import java.util.List;

/**
 * A typed request: one operation with the namespace, group and key it acts on, parsed once from
 * its protocol's spelling. The access check grants or refuses exactly {@link #resources()}, the
 * handler executes this same object, and the audit line names these resources: so no two parts
 * of the server can disagree about what a request names.
 */
public interface Scoped {
    /**
     * What the request reads or writes. Empty only for a request that touches no data (a listen
     * naming no key), which then needs nothing but a caller who logged in.
     */
    List<Resource> resources();
}
