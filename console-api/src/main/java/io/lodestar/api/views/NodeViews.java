package io.lodestar.api.views;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.lodestar.api.grpc.GrpcApi;
import io.lodestar.api.push.PushRoutes;
import io.lodestar.api.udp.UdpPusher;
import io.lodestar.config.ConfigKey;
import io.lodestar.config.listen.ConfigListener;
import io.lodestar.config.listen.LongPollRegistry;
import io.lodestar.error.InvalidRequestException;
import io.lodestar.kv.KvStore;
import io.lodestar.kv.cluster.ClusterView;
import io.lodestar.kv.cluster.Readiness;
import io.lodestar.naming.distro.Distro;
import io.lodestar.naming.model.InstanceAddress;
import io.lodestar.naming.model.ServiceKey;
import io.lodestar.naming.service.NamingService;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * What this node itself knows for the operator's views: the clients connected to it and its own
 * Raft and Distro state. Every answer is a JSON value, the same whether the node asking is this one
 * or another member ({@link ClusterGather} carries the question and the answer between members).
 * Reads only what is in memory here; never blocks.
 */
public final class NodeViews {
    static final String LONG_POLL = "http-long-poll";
    static final String GRPC = "grpc";
    static final String PUSH_CHANNEL = "push-channel";
    static final String UDP = "udp-push";

    private static final JsonNodeFactory JSON = JsonNodeFactory.instance;

    private final KvStore store;
    private final Supplier<Readiness> readiness;
    private final LongPollRegistry polls;
    private final PushRoutes push;
    private final GrpcApi grpc; // null when gRPC is off
    private final UdpPusher udp; // null when UDP push is off
    private final NamingService naming;

    public NodeViews(
            KvStore store,
            Supplier<Readiness> readiness,
            LongPollRegistry polls,
            PushRoutes push,
            GrpcApi grpc,
            UdpPusher udp,
            NamingService naming) {
        this.store = store;
        this.readiness = readiness;
        this.polls = polls;
        this.push = push;
        this.grpc = grpc;
        this.udp = udp;
        this.naming = naming;
    }

    /** Questions, as {@link ClusterGather} sends them. */
    static ObjectNode configListeners(ConfigKey key) {
        return JSON.objectNode()
                .put("view", "config-listeners")
                .put("tenant", key.tenant())
                .put("group", key.group())
                .put("dataId", key.dataId());
    }

    static ObjectNode listenersAt(String ip) {
        return JSON.objectNode().put("view", "listeners-at").put("ip", ip);
    }

    static ObjectNode subscribers(ServiceKey service) {
        return serviceQuestion("subscribers", service);
    }

    static ObjectNode holders(ServiceKey service) {
        return serviceQuestion("holders", service);
    }

    static ObjectNode status() {
        return JSON.objectNode().put("view", "status");
    }

    private static ObjectNode serviceQuestion(String view, ServiceKey service) {
        return JSON.objectNode()
                .put("view", view)
                .put("namespace", service.namespace())
                .put("group", service.group())
                .put("service", service.service());
    }

    /** This node's answer to {@code question}; throws {@link InvalidRequestException} for one it does not know. */
    public JsonNode answer(JsonNode question) {
        String view = question.path("view").asText("");
        return switch (view) {
            case "config-listeners" ->
                configListenersHere(
                        new ConfigKey(text(question, "tenant"), text(question, "group"), text(question, "dataId")));
            case "listeners-at" -> listenersAtHere(text(question, "ip"));
            case "subscribers" -> subscribersHere(service(question));
            case "holders" -> holdersHere(service(question));
            case "status" -> statusHere();
            default -> throw new InvalidRequestException("view", "unknown view '" + view + "'");
        };
    }

    private ArrayNode configListenersHere(ConfigKey key) {
        ArrayNode rows = JSON.arrayNode();
        polls.listeners(key).forEach(l -> rows.add(row(l, LONG_POLL)));
        if (grpc != null) {
            grpc.configListeners(key).forEach(l -> rows.add(row(l, GRPC)));
        }
        push.listeners(key).forEach(l -> rows.add(row(l, PUSH_CHANNEL)));
        return rows;
    }

    private ArrayNode listenersAtHere(String ip) {
        ArrayNode rows = JSON.arrayNode();
        polls.listenersAt(ip).forEach(l -> rows.add(row(l, LONG_POLL)));
        if (grpc != null) {
            grpc.configListenersAt(ip).forEach(l -> rows.add(row(l, GRPC)));
        }
        push.listenersAt(ip).forEach(l -> rows.add(row(l, PUSH_CHANNEL)));
        return rows;
    }

    private static ObjectNode row(ConfigListener l, String protocol) {
        ObjectNode o = JSON.objectNode();
        o.put("clientAddress", l.clientAddress());
        o.put("ip", ipOf(l.clientAddress()));
        o.put("protocol", protocol);
        o.put("md5", l.md5());
        o.put("dataId", l.key().dataId());
        o.put("group", l.key().group());
        o.put("tenant", l.key().tenant());
        if (l.notice() != null) {
            ObjectNode n = o.putObject("notice");
            n.put("md5", l.notice().md5());
            n.put("at", l.notice().atMillis());
            n.put("via", l.notice().via());
            if (l.notice().acked() != null) {
                n.put("acked", l.notice().acked());
            }
            if (l.notice().error() != null) {
                n.put("error", l.notice().error());
            }
        }
        if (l.pull() != null) {
            o.putObject("pull")
                    .put("md5", l.pull().md5())
                    .put("at", l.pull().atMillis())
                    .put("via", l.pull().via());
        }
        return o;
    }

    private ArrayNode subscribersHere(ServiceKey service) {
        ArrayNode rows = JSON.arrayNode();
        if (grpc != null) {
            grpc.subscribers(service).forEach((client, clusters) -> {
                ObjectNode o = subscriber(service, client.address(), GRPC, clusters);
                o.put("agent", client.version());
                o.put("app", app(client.labels()));
                o.put("connectionId", client.connectionId());
                rows.add(o);
            });
        }
        if (udp != null) {
            udp.subscribers(service).forEach((address, clusters) -> {
                ObjectNode o = subscriber(service, address, UDP, clusters);
                // a 1.x client's UDP subscription says nothing of the client; its list queries
                // name an agent in a header this node does not keep
                o.putNull("agent");
                o.put("app", "unknown");
                o.putNull("connectionId");
                rows.add(o);
            });
        }
        return rows;
    }

    private static ObjectNode subscriber(ServiceKey service, String address, String protocol, String clusters) {
        ObjectNode o = JSON.objectNode();
        o.put("addrStr", address);
        o.put("ip", ipOf(address));
        o.put("port", portOf(address));
        o.put("namespaceId", service.namespace());
        o.put("serviceName", service.groupedName());
        o.put("cluster", clusters == null ? "" : clusters);
        o.put("protocol", protocol);
        return o;
    }

    private static String app(Map<String, String> labels) {
        for (String name : List.of("AppName", "appName", "app")) {
            String v = labels.get(name);
            if (v != null && !v.isBlank()) {
                return v;
            }
        }
        return "unknown";
    }

    private ArrayNode holdersHere(ServiceKey service) {
        ArrayNode rows = JSON.arrayNode();
        if (grpc == null) {
            return rows;
        }
        grpc.holders(service).forEach((InstanceAddress address, List<GrpcApi.Client> clients) -> {
            for (GrpcApi.Client client : clients) {
                ObjectNode o = JSON.objectNode();
                o.put("cluster", address.cluster());
                o.put("ip", address.ip());
                o.put("port", address.port());
                o.put("connectionId", client.connectionId());
                o.put("clientAddress", client.address());
                o.put("agent", client.version());
                rows.add(o);
            }
        });
        return rows;
    }

    private ObjectNode statusHere() {
        ClusterView v = store.cluster();
        Readiness r = readiness.get();
        ObjectNode o = JSON.objectNode();
        o.put("raftAddress", v.self());
        o.put(
                "role",
                v.members().stream()
                        .filter(m -> m.address().equals(v.self()))
                        .map(m -> m.state().name())
                        .findFirst()
                        .orElse(null));
        o.put("leader", v.leader());
        o.put("term", v.term());
        o.put("commitIndex", v.commitIndex());
        o.put("appliedIndex", v.appliedIndex());
        o.put("revision", store.revision());
        o.put("ready", r.ready());
        o.put("readiness", r.reason());
        ObjectNode distro = o.putObject("distro");
        distro.put("loaded", naming.ephemeralLoaded());
        ObjectNode peers = distro.putObject("lastVerify");
        naming.distroVerifications().forEach((peer, verify) -> peers.set(peer, verify(verify)));
        return o;
    }

    private static ObjectNode verify(Distro.PeerVerify v) {
        ObjectNode o = JSON.objectNode();
        o.put("at", v.atMillis());
        o.put("servicesSent", v.servicesSent());
        o.put("differing", v.differing());
        o.put("error", v.error());
        return o;
    }

    private static ServiceKey service(JsonNode q) {
        return ServiceKey.of(text(q, "namespace"), text(q, "group"), text(q, "service"));
    }

    private static String text(JsonNode q, String field) {
        JsonNode v = q.get(field);
        if (v == null || !v.isTextual()) {
            throw new InvalidRequestException(field, "is required");
        }
        return v.asText();
    }

    /** The IP of an {@code ip}, {@code ip:port} or {@code [v6]:port} address. */
    static String ipOf(String address) {
        if (address == null) {
            return null;
        }
        int colon = address.lastIndexOf(':');
        if (colon < 0 || address.indexOf(':') != colon && !address.startsWith("[")) {
            return address; // a bare IPv4 or IPv6 literal
        }
        String host = address.substring(0, colon);
        return host.startsWith("[") ? host.substring(1, host.length() - 1) : host;
    }

    private static int portOf(String address) {
        int colon = address == null ? -1 : address.lastIndexOf(':');
        if (colon < 0 || address.indexOf(':') != colon && !address.startsWith("[")) {
            return 0;
        }
        try {
            return Integer.parseInt(address.substring(colon + 1));
        } catch (NumberFormatException e) {
            return 0;
        }
    }
}
