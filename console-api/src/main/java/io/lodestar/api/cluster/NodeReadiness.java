package io.lodestar.api.cluster;

import io.lodestar.kv.KvStore;
import io.lodestar.kv.cluster.Readiness;
import io.lodestar.naming.service.NamingService;
import java.util.function.Supplier;

/**
 * Whether this node should take traffic: the store has caught up with a known leader, and the
 * registry holds a copy of the other members' ephemeral instances (else a client sent here would
 * see services vanish). What readiness, {@code /operator/metrics} and the metrics gauge report.
 */
public final class NodeReadiness implements Supplier<Readiness> {
    private final KvStore store;
    private final NamingService naming;

    public NodeReadiness(KvStore store, NamingService naming) {
        this.store = store;
        this.naming = naming;
    }

    @Override
    public Readiness get() {
        Readiness r = store.readiness();
        if (r.ready() && !naming.ephemeralLoaded()) {
            return new Readiness(false, "copying the other members' ephemeral instances");
        }
        return r;
    }
}
