package io.lodestar.naming.distro;

import io.lodestar.naming.ephemeral.EphemeralRegistry;
import io.lodestar.naming.ephemeral.ServiceCopy;
import io.lodestar.naming.model.ServiceKey;

/**
 * Installs what peers send into this node's registry. A change installed from a peer is not this
 * node's own, so it is never sent on: {@link #installing()} tells {@link DistroSync} so while the
 * registry reports it, on the installing thread.
 */
final class PeerCopies {
    private static final ThreadLocal<Boolean> INSTALLING = ThreadLocal.withInitial(() -> false);

    private final EphemeralRegistry registry;

    PeerCopies(EphemeralRegistry registry) {
        this.registry = registry;
    }

    /** Whether the calling thread is installing a peer's copy. */
    static boolean installing() {
        return INSTALLING.get();
    }

    /** Merges a peer's copy of a service into this node's. */
    void merge(ServiceCopy copy) {
        INSTALLING.set(true);
        try {
            registry.merge(copy);
        } finally {
            INSTALLING.set(false);
        }
    }

    /** Forgets a service its owner no longer has. */
    void drop(ServiceKey service) {
        INSTALLING.set(true);
        try {
            registry.drop(service);
        } finally {
            INSTALLING.set(false);
        }
    }
}
