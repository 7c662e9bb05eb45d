package io.lodestar.api.request;

import io.lodestar.config.ConfigKey;
import io.lodestar.naming.model.ServiceKey;
import java.util.List;

/**
 * The operator's views, typed: who listens, who subscribes, who holds what. Each reads a
 * namespace's data (a read permission on it), and each answers for the whole cluster.
 */
public sealed interface ViewOp extends Scoped {
    /** Who listens to the config at {@code key}, on every member. */
    record ConfigListeners(ConfigKey key) implements ViewOp {
        @Override
        public List<Resource> resources() {
            return List.of(Resource.config(key));
        }
    }

    /** Which configs of {@code namespace} the clients at {@code ip} listen to, on every member. */
    record ListenersAt(String namespace, String ip) implements ViewOp {
        @Override
        public List<Resource> resources() {
            return List.of(Resource.configs(namespace, null, null));
        }
    }

    /** A page of the clients subscribed to a service, on every member. */
    record Subscribers(ServiceKey service, int pageNo, int pageSize) implements ViewOp {
        @Override
        public List<Resource> resources() {
            return List.of(Resource.service(service));
        }
    }

    /**
     * A page of a service's instances (of {@code cluster}, every cluster when null) with what keeps
     * each alive: a gRPC connection (and which), its client's heartbeats, or the server's probes.
     */
    record Instances(ServiceKey service, String cluster, int pageNo, int pageSize) implements ViewOp {
        @Override
        public List<Resource> resources() {
            return List.of(Resource.service(service));
        }
    }
}
