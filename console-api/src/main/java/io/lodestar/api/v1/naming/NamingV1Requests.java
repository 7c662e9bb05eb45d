package io.lodestar.api.v1.naming;

import io.lodestar.api.http.Exchange;
import io.lodestar.api.http.Params;
import io.lodestar.api.request.Names;
import io.lodestar.api.request.NamingFields;
import io.lodestar.api.request.NamingOp;
import io.lodestar.error.InvalidRequestException;
import io.lodestar.naming.model.BeatInfo;
import io.lodestar.naming.model.HealthCheckSettings;
import io.lodestar.naming.model.InstanceAddress;
import io.lodestar.naming.model.InstancePatch;
import io.lodestar.naming.model.NamingValidation;
import io.lodestar.naming.model.ServiceKey;
import io.lodestar.naming.model.ServiceSpec;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The v1 naming API's one reader of requests: each route's request becomes its typed {@link
 * NamingOp} here, from Nacos 1.x's spellings (namespace, group and service by {@link Names};
 * {@code clusterName} or the older {@code cluster}; {@code enabled} or the 1.x client's {@code
 * enable}; {@code healthy} or the older {@code valid}), and nothing else reads them.
 */
final class NamingV1Requests {
    /** Page size of a service list when the request names none (the 1.x client always does). */
    static final int DEFAULT_PAGE_SIZE = 10;

    private NamingV1Requests() {}

    /** {@code POST} and {@code PUT /instance}: the instance the request describes. */
    static NamingOp.Register register(Exchange request) {
        Params q = request.params();
        return new NamingOp.Register(Names.service(q), NamingFields.instance(q));
    }

    static NamingOp.Deregister deregister(Exchange request) {
        Params q = request.params();
        return new NamingOp.Deregister(Names.service(q), address(q), NamingFields.bool(q, "ephemeral", true));
    }

    static NamingOp.Patch patch(Exchange request) {
        Params q = request.params();
        ServiceKey service = Names.service(q);
        InstanceAddress address = address(q);
        if (q.get("healthy") != null) {
            // Nacos 1.4 lets PATCH set health; here heartbeats or probes own it, and a manual
            // change goes through the one route that checks who owns it
            throw new InvalidRequestException(
                    "healthy", "cannot be patched; use PUT " + InstanceRoutes.BASE + "/health/instance");
        }
        return new NamingOp.Patch(
                service,
                address,
                new InstancePatch(
                        NamingFields.optionalNumber(q, "weight"),
                        NamingFields.enabled(q),
                        NamingFields.optionalMetadata(q)));
    }

    static NamingOp.InstanceQuery instance(Exchange request) {
        Params q = request.params();
        return new NamingOp.InstanceQuery(Names.service(q), address(q));
    }

    /** {@code GET /instance/list}; {@code clientIP} and {@code app} are informative only (pushes go to the socket's address). */
    static NamingOp.ListQuery list(Exchange request) {
        Params q = request.params();
        ServiceKey service = Names.service(q);
        String clusters = q.get("clusters");
        clusters = clusters == null ? "" : clusters;
        Set<String> filter = NamingFields.clusterSet(clusters);
        for (String c : filter) {
            NamingValidation.checkCluster("clusters", c);
        }
        return new NamingOp.ListQuery(
                service,
                clusters,
                filter,
                NamingFields.bool(q, "healthyOnly", false),
                NamingFields.integer(q, "udpPort", 0, 0, NamingValidation.MAX_PORT));
    }

    /**
     * A heartbeat. The address comes from the query ({@code ip}, {@code port}, {@code clusterName})
     * or, where absent, from the full beat ({@code beat}, the 1.x client's BeatInfo JSON; absent for
     * light beats).
     */
    static NamingOp.Beat beat(Exchange request) {
        Params q = request.params();
        ServiceKey service = Names.service(q);
        String ip = q.get("ip");
        ip = ip == null || ip.isBlank() ? null : ip;
        String portParam = q.get("port");
        Integer port = portParam == null || portParam.isBlank() ? null : NamingFields.port("port", portParam);
        String raw = q.get("beat");
        Optional<BeatInfo> beat =
                raw == null || raw.isBlank() ? Optional.empty() : Optional.of(NamingFields.beat(raw, ip, port));
        if (beat.isPresent()) {
            ip = ip != null ? ip : beat.get().ip();
            port = port != null ? port : beat.get().port();
        }
        if (ip == null) {
            throw new InvalidRequestException("ip", "is required");
        }
        if (port == null) {
            throw new InvalidRequestException("port", "is required");
        }
        String cluster = q.get("clusterName");
        if ((cluster == null || cluster.isBlank()) && beat.isPresent()) {
            cluster = beat.get().cluster();
        }
        return new NamingOp.Beat(service, cluster, ip, port, beat);
    }

    static NamingOp.SetHealth health(Exchange request) {
        Params q = request.params();
        ServiceKey service = Names.service(q);
        InstanceAddress address = address(q);
        Boolean healthy = NamingFields.optionalBool(q, "healthy");
        if (healthy == null) {
            healthy = NamingFields.optionalBool(q, "valid");
        }
        if (healthy == null) {
            throw new InvalidRequestException("healthy", "is required (true or false)");
        }
        return new NamingOp.SetHealth(service, address, healthy);
    }

    static NamingOp.UpdateCluster cluster(Exchange request) {
        Params q = request.params();
        ServiceKey service = Names.service(q);
        String cluster = NamingFields.required(q, "clusterName");
        if (!NamingFields.metadata(q).isEmpty()) {
            throw new InvalidRequestException("metadata", "cluster metadata is not supported");
        }
        HealthCheckSettings settings = ClusterRoutes.settings(
                NamingFields.required(q, "healthChecker"),
                NamingFields.integer(q, "checkPort", HealthCheckSettings.DEFAULT.checkPort(), 0, 65535),
                NamingFields.bool(q, "useInstancePort4Check", true));
        return new NamingOp.UpdateCluster(service, cluster, settings);
    }

    static NamingOp.CreateService createService(Exchange request) {
        Params q = request.params();
        return new NamingOp.CreateService(
                Names.service(q),
                new ServiceSpec(NamingFields.number(q, "protectThreshold", 0), NamingFields.metadata(q), Map.of()));
    }

    /** As in Nacos, an absent protectThreshold or metadata resets it. */
    static NamingOp.UpdateService updateService(Exchange request) {
        Params q = request.params();
        return new NamingOp.UpdateService(
                Names.service(q), NamingFields.number(q, "protectThreshold", 0), NamingFields.metadata(q));
    }

    static NamingOp.DeleteService deleteService(Exchange request) {
        return new NamingOp.DeleteService(Names.service(request.params()));
    }

    static NamingOp.ServiceQuery service(Exchange request) {
        return new NamingOp.ServiceQuery(Names.service(request.params()));
    }

    static NamingOp.ServiceList serviceList(Exchange request) {
        Params q = request.params();
        return new NamingOp.ServiceList(
                Names.namespace(q),
                serviceGroup(q),
                NamingFields.integer(q, "pageNo", 1, 1, Integer.MAX_VALUE),
                NamingFields.integer(q, "pageSize", DEFAULT_PAGE_SIZE, 1, Integer.MAX_VALUE));
    }

    /** A listing's group: the one named, else the default group. */
    static String serviceGroup(Params q) {
        String group = Names.group(q);
        return group == null ? ServiceKey.DEFAULT_GROUP : group;
    }

    private static InstanceAddress address(Params q) {
        return new InstanceAddress(NamingFields.cluster(q), NamingFields.required(q, "ip"), NamingFields.port(q));
    }
}
