package io.lodestar.api.request;

import io.lodestar.config.ConfigKey;
import io.lodestar.naming.model.ServiceKey;
import java.util.List;

/**
 * The operator's views, typed: who listens, who subscribes, who holds what, who was told of a
 * publish; the service catalog and Prometheus's targets. Each reads a namespace's data (a read
 * permission on what it names); the listener views answer for the whole cluster.
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

    /**
     * The delivery report of one publish of the config at {@code key}: every listener on every
     * member, whether it was told and has pulled. The publish is named by {@code md5}, or by its
     * history id ({@code nid}), or is the current content when both are null.
     */
    record Delivery(ConfigKey key, String md5, Long nid) implements ViewOp {
        @Override
        public List<Resource> resources() {
            return List.of(Resource.config(key));
        }
    }

    /**
     * A page of the services of {@code namespace} whose group and name contain the given parts
     * (blank: any), as Nacos's console lists them; {@code hasIpCount} leaves out those without
     * instances, {@code withInstances} answers each service's clusters and hosts instead of counts.
     */
    record CatalogServices(
            String namespace,
            String groupContains,
            String nameContains,
            boolean hasIpCount,
            boolean withInstances,
            int pageNo,
            int pageSize)
            implements ViewOp {
        @Override
        public List<Resource> resources() {
            return List.of(Resource.services(namespace, Resource.ALL));
        }
    }

    /** One service with its clusters and their health checkers, as Nacos's console shows it. */
    record CatalogService(ServiceKey service) implements ViewOp {
        @Override
        public List<Resource> resources() {
            return List.of(Resource.service(service));
        }
    }

    /**
     * Prometheus's HTTP service discovery: the healthy, enabled instances of every service named
     * {@code service} (any group; every service when null) of {@code namespace} (every namespace
     * when null, which needs a read on every namespace).
     */
    record PrometheusTargets(String namespace, String service) implements ViewOp {
        @Override
        public List<Resource> resources() {
            return List.of(new Resource(
                    "naming",
                    namespace == null ? Resource.ALL : Names.canonical(namespace),
                    Resource.ALL,
                    service == null ? Resource.ALL : service));
        }
    }
}
