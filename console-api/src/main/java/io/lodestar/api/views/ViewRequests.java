package io.lodestar.api.views;

import io.lodestar.api.http.Exchange;
import io.lodestar.api.http.Params;
import io.lodestar.api.request.Names;
import io.lodestar.api.request.NamingFields;
import io.lodestar.api.request.ViewOp;
import io.lodestar.config.BetaIps;
import io.lodestar.error.InvalidRequestException;
import io.lodestar.naming.model.NamingValidation;

/** The one reader of the views' requests: each becomes its typed {@link ViewOp} here, and nothing else reads them. */
final class ViewRequests {
    static final int DEFAULT_PAGE_SIZE = 100;
    static final int MAX_PAGE_SIZE = 1000;

    private ViewRequests() {}

    /** {@code GET /nacos/v1/cs/configs/listener?dataId&group&tenant}. */
    static ViewOp.ConfigListeners configListeners(Exchange request) {
        return new ViewOp.ConfigListeners(Names.config(request.params()));
    }

    /** {@code GET /nacos/v1/cs/listener?ip&tenant}: an IP literal, never a host name (nothing is looked up). */
    static ViewOp.ListenersAt listenersAt(Exchange request) {
        Params q = request.params();
        String ip = q.get("ip");
        if (ip == null || ip.isBlank()) {
            throw InvalidRequestException.missing("ip");
        }
        String canonical = BetaIps.canonical(ip.trim());
        if (canonical == null) {
            throw new InvalidRequestException("ip", "'" + Names.shorten(ip) + "' is not an IPv4 or IPv6 address");
        }
        return new ViewOp.ListenersAt(Names.namespace(q), canonical);
    }

    /** {@code GET /nacos/v1/ns/service/subscribers?serviceName&groupName&namespaceId&pageNo&pageSize}. */
    static ViewOp.Subscribers subscribers(Exchange request) {
        Params q = request.params();
        return new ViewOp.Subscribers(Names.service(q), pageNo(q), pageSize(q));
    }

    /** {@code GET /nacos/v1/ns/catalog/instances?serviceName&groupName&namespaceId&clusterName&pageNo&pageSize}. */
    static ViewOp.Instances instances(Exchange request) {
        Params q = request.params();
        String cluster = q.get("clusterName");
        if (cluster != null && cluster.isBlank()) {
            cluster = null;
        }
        if (cluster != null) {
            NamingValidation.checkCluster("clusterName", cluster);
        }
        return new ViewOp.Instances(Names.service(q), cluster, pageNo(q), pageSize(q));
    }

    private static int pageNo(Params q) {
        return NamingFields.integer(q, "pageNo", 1, 1, Integer.MAX_VALUE);
    }

    private static int pageSize(Params q) {
        return NamingFields.integer(q, "pageSize", DEFAULT_PAGE_SIZE, 1, MAX_PAGE_SIZE);
    }
}
