package io.lodestar.api.views;

import io.lodestar.api.http.Exchange;
import io.lodestar.api.http.Params;
import io.lodestar.api.request.Names;
import io.lodestar.api.request.NamingFields;
import io.lodestar.api.request.ViewOp;
import io.lodestar.config.BetaIps;
import io.lodestar.config.ConfigKey;
import io.lodestar.error.InvalidRequestException;
import io.lodestar.naming.model.NamingValidation;

/** The one reader of the views' requests: each becomes its typed {@link ViewOp} here, and nothing else reads them. */
final class ViewRequests {
    static final int DEFAULT_PAGE_SIZE = 100;
    static final int MAX_PAGE_SIZE = 1000;
    private static final java.util.regex.Pattern MD5 = java.util.regex.Pattern.compile("[0-9a-f]{32}");

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

    /**
     * {@code GET /lodestar/v1/cs/delivery?dataId&group&tenant[&md5|&nid]}: the publish named by the
     * MD5 of its content or by its history id, not both; neither is the current content.
     */
    static ViewOp.Delivery delivery(Exchange request) {
        Params q = request.params();
        ConfigKey key = Names.config(q);
        String md5 = blankToNull(q.get("md5"));
        String nid = blankToNull(q.get("nid"));
        if (md5 != null && nid != null) {
            throw new InvalidRequestException("nid", "name the publish by md5 or by nid, not both");
        }
        if (md5 != null && !MD5.matcher(md5).matches()) {
            throw new InvalidRequestException("md5", "'" + Names.shorten(md5) + "' is not 32 lowercase hex digits");
        }
        Long id = null;
        if (nid != null) {
            try {
                id = Long.parseLong(nid.trim());
            } catch (NumberFormatException e) {
                throw new InvalidRequestException("nid", "'" + Names.shorten(nid) + "' is not a history id");
            }
            if (id < 1) {
                throw new InvalidRequestException("nid", "must be at least 1");
            }
        }
        return new ViewOp.Delivery(key, md5, id);
    }

    /**
     * {@code GET /nacos/v1/ns/catalog/services?namespaceId&groupNameParam&serviceNameParam&hasIpCount
     * &withInstances&pageNo&pageSize}, as Nacos's {@code CatalogController#listDetail} reads it; the
     * two name parts are matched as text contained in the name (Nacos makes a regular expression of
     * them: any character of one that is not allowed in a name is refused here instead).
     */
    static ViewOp.CatalogServices catalogServices(Exchange request) {
        Params q = request.params();
        return new ViewOp.CatalogServices(
                Names.namespace(q),
                namePart(q, "groupNameParam", NamingValidation.MAX_GROUP),
                namePart(q, "serviceNameParam", NamingValidation.MAX_SERVICE),
                NamingFields.bool(q, "hasIpCount", false),
                NamingFields.bool(q, "withInstances", false),
                pageNo(q),
                pageSize(q));
    }

    /** {@code GET /nacos/v1/ns/catalog/service?namespaceId&serviceName[&groupName]}. */
    static ViewOp.CatalogService catalogService(Exchange request) {
        return new ViewOp.CatalogService(Names.service(request.params()));
    }

    /**
     * {@code GET /nacos/prometheus[/namespaceId/{namespaceId}[/service/{service}]]}: the namespace
     * and service (its name without group: every group's) from the path.
     */
    static ViewOp.PrometheusTargets prometheus(Exchange request) {
        String namespace = request.pathParam("namespaceId");
        String service = request.pathParam("service");
        if (namespace != null) {
            namespace = Names.canonical(namespace);
            NamingValidation.checkNamespace(namespace);
        }
        if (service != null) {
            NamingValidation.checkServiceName(service);
        }
        return new ViewOp.PrometheusTargets(namespace, service);
    }

    private static String namePart(Params q, String field, int max) {
        String v = blankToNull(q.get(field));
        if (v == null) {
            return null;
        }
        if (v.length() > max) {
            throw new InvalidRequestException(field, "longer than " + max + " characters");
        }
        for (int i = 0; i < v.length(); i++) {
            char c = v.charAt(i);
            if (!Character.isLetterOrDigit(c) && "-_.:@".indexOf(c) < 0) {
                throw new InvalidRequestException(
                        field, "'" + Names.shorten(v) + "': only letters, digits and - _ . : @ are allowed");
            }
        }
        return v;
    }

    private static String blankToNull(String v) {
        return v == null || v.isBlank() ? null : v;
    }

    private static int pageNo(Params q) {
        return NamingFields.integer(q, "pageNo", 1, 1, Integer.MAX_VALUE);
    }

    private static int pageSize(Params q) {
        return NamingFields.integer(q, "pageSize", DEFAULT_PAGE_SIZE, 1, MAX_PAGE_SIZE);
    }
}
