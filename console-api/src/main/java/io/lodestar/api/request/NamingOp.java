package io.lodestar.api.request;

import io.lodestar.naming.model.BeatInfo;
import io.lodestar.naming.model.HealthCheckSettings;
import io.lodestar.naming.model.Instance;
import io.lodestar.naming.model.InstanceAddress;
import io.lodestar.naming.model.InstancePatch;
import io.lodestar.naming.model.ServiceKey;
import io.lodestar.naming.model.ServiceSpec;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/** Every naming operation, typed: what each protocol's parser builds and its handler executes. */
public sealed interface NamingOp extends Scoped {
    /** The service every operation but a listing acts on. */
    ServiceKey service();

    @Override
    default List<Resource> resources() {
        return List.of(Resource.service(service()));
    }

    /** A registration, or (HTTP {@code PUT}) an update of the instance at the same address. */
    record Register(ServiceKey service, Instance instance) implements NamingOp {}

    /** A deregistration of the instance at {@code address}; {@code ephemeral} is the kind the caller believes. */
    record Deregister(ServiceKey service, InstanceAddress address, boolean ephemeral) implements NamingOp {}

    /** A gRPC batch: the connection's instances of the service become {@code instances}, or lose them. */
    record Batch(ServiceKey service, boolean register, List<Instance> instances) implements NamingOp {
        public Batch {
            instances = List.copyOf(instances);
        }
    }

    /** Only the given fields of the instance change. */
    record Patch(ServiceKey service, InstanceAddress address, InstancePatch patch) implements NamingOp {}

    /** Sets a persistent instance's health by hand. */
    record SetHealth(ServiceKey service, InstanceAddress address, boolean healthy) implements NamingOp {}

    /** One instance's detail. */
    record InstanceQuery(ServiceKey service, InstanceAddress address) implements NamingOp {}

    /**
     * A service's instance list: in {@code clusters} (as the client spelled them; empty for all),
     * healthy ones only if asked; {@code udpPort} above 0 subscribes the asking address to pushes.
     */
    record ListQuery(ServiceKey service, String clusters, Set<String> clusterFilter, boolean healthyOnly, int udpPort)
            implements NamingOp {
        public ListQuery {
            clusterFilter = Set.copyOf(clusterFilter);
        }
    }

    /** A gRPC subscription (or its end) to a service's list in {@code clusters}. */
    record Subscribe(ServiceKey service, String clusters, boolean subscribe) implements NamingOp {}

    /** A heartbeat of the instance at {@code cluster}/{@code ip}:{@code port}; {@code beat} is the full beat, if sent. */
    record Beat(ServiceKey service, String cluster, String ip, int port, Optional<BeatInfo> beat) implements NamingOp {}

    /** Creates a service's definition. */
    record CreateService(ServiceKey service, ServiceSpec spec) implements NamingOp {}

    /** Replaces a service's protect threshold and metadata. */
    record UpdateService(ServiceKey service, double protectThreshold, java.util.Map<String, String> metadata)
            implements NamingOp {
        public UpdateService {
            metadata = java.util.Map.copyOf(metadata);
        }
    }

    record DeleteService(ServiceKey service) implements NamingOp {}

    /** A service's definition with its clusters and instances. */
    record ServiceQuery(ServiceKey service) implements NamingOp {}

    /** How one cluster of a service is probed. */
    record UpdateCluster(ServiceKey service, String cluster, HealthCheckSettings settings) implements NamingOp {}

    /** A page of the names of a group's services. */
    record ServiceList(String namespace, String group, int pageNo, int pageSize) implements Scoped {
        @Override
        public List<Resource> resources() {
            return List.of(Resource.services(namespace, group));
        }
    }
}
