package io.lodestar.api.grpc;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.lodestar.api.request.ConfigOp;
import io.lodestar.api.request.Fields;
import io.lodestar.api.request.Names;
import io.lodestar.api.request.NamingFields;
import io.lodestar.api.request.NamingOp;
import io.lodestar.api.request.Resource;
import io.lodestar.api.request.Scoped;
import io.lodestar.config.BetaIps;
import io.lodestar.config.ConfigKey;
import io.lodestar.config.PublishRequest;
import io.lodestar.config.listen.ListeningConfigs;
import io.lodestar.config.listen.ListeningEntry;
import io.lodestar.error.InvalidRequestException;
import io.lodestar.naming.model.Instance;
import io.lodestar.naming.model.ServiceKey;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The gRPC API's one reader of requests: each request type's body becomes its typed request here,
 * from the fields of Nacos's request classes (namespace and group by {@link Names}: a config's
 * {@code tenant}, a service's {@code namespace} and {@code groupName}; an instance's fields and
 * metadata by {@link NamingFields}, as over HTTP), and nothing else reads them.
 */
final class GrpcParsers {
    private GrpcParsers() {}

    /** A batch listen with the namespace of each key as the client spelled it, which its answers echo. */
    record BatchListen(ConfigOp.Listen listen, Map<ConfigKey, String> spelled) implements Scoped {
        @Override
        public List<Resource> resources() {
            return listen.resources();
        }
    }

    /** A registration or deregistration of one instance: ephemeral, or persistent by its request type. */
    record InstanceChange(ServiceKey service, boolean register, Instance instance) implements Scoped {
        @Override
        public List<Resource> resources() {
            return List.of(Resource.service(service));
        }
    }

    /** A service's list for a query: in {@code clusters}, healthy ones only if asked. */
    record ServiceQuery(ServiceKey service, String clusters, boolean healthyOnly) implements Scoped {
        @Override
        public List<Resource> resources() {
            return List.of(Resource.service(service));
        }
    }

    static ConfigOp.Read configQuery(GrpcRequest r) {
        refuseTag(r.fields().get("tag"));
        return new ConfigOp.Read(Names.config(r.fields()));
    }

    static ConfigOp.Remove configRemove(GrpcRequest r) {
        refuseTag(r.fields().get("tag"));
        return new ConfigOp.Remove(Names.config(r.fields()));
    }

    /** {@code additionMap} carries the descriptive fields, a gray release's {@code betaIps} and a refused {@code tag}. */
    static ConfigOp.Publish configPublish(GrpcRequest r) {
        Fields q = r.fields();
        ObjectNode addition = GrpcRequest.object(r.body(), "additionMap");
        Fields more = addition == null ? name -> null : GrpcRequest.fields(addition);
        refuseTag(more.get("tag"));
        PublishRequest publish = new PublishRequest(
                Names.config(q),
                q.get("content"),
                more.get("type"),
                more.get("appName"),
                more.get("desc"),
                more.get("config_tags"),
                r.remoteAddr(),
                r.caller()); // the author is who logged in, never the request's src_user
        String betaIps = more.get(BetaIps.FIELD);
        // Nacos's client leaves the field empty for a stable publish; over HTTP an empty header is refused
        return new ConfigOp.Publish(publish, q.get("casMd5"), betaIps == null || betaIps.isEmpty() ? null : betaIps);
    }

    static BatchListen configListen(GrpcRequest r) {
        JsonNode contexts = r.body().get("configListenContexts");
        if (contexts != null && !contexts.isNull() && !contexts.isArray()) {
            throw new InvalidRequestException(
                    "configListenContexts", "must be an array, not " + contexts.getNodeType());
        }
        List<ListeningEntry> entries = new ArrayList<>();
        Map<ConfigKey, String> spelled = new HashMap<>();
        if (contexts != null) {
            if (contexts.size() > ListeningConfigs.MAX_ENTRIES) {
                throw new InvalidRequestException(
                        "configListenContexts",
                        contexts.size() + " keys in one request; at most " + ListeningConfigs.MAX_ENTRIES);
            }
            for (JsonNode c : contexts) {
                if (!c.isObject()) {
                    throw new InvalidRequestException(
                            "configListenContexts", "each entry must be an object, not " + c.getNodeType());
                }
                Fields entry = GrpcRequest.fields(c);
                ConfigKey key = Names.config(entry);
                String md5 = entry.get("md5");
                entries.add(new ListeningEntry(key, md5 == null ? "" : md5));
                String tenant = entry.get("tenant");
                spelled.put(key, tenant == null ? "" : tenant);
            }
        }
        boolean listen = NamingFields.bool(r.fields(), "listen", true);
        return new BatchListen(new ConfigOp.Listen(entries, listen, 0, true), spelled);
    }

    static InstanceChange instance(GrpcRequest r) {
        return instanceChange(r, true);
    }

    static InstanceChange persistentInstance(GrpcRequest r) {
        return instanceChange(r, false);
    }

    private static InstanceChange instanceChange(GrpcRequest r, boolean ephemeral) {
        String type = NamingFields.required(r.fields(), "type");
        boolean register = switch (type) {
            case "registerInstance" -> true;
            case "deregisterInstance" -> false;
            default ->
                throw new InvalidRequestException(
                        "type", "'" + type + "' is neither registerInstance nor deregisterInstance");
        };
        return new InstanceChange(
                Names.service(r.fields()), register, instance(r.body().get("instance"), "instance", ephemeral));
    }

    static NamingOp.Batch batch(GrpcRequest r) {
        String type = NamingFields.required(r.fields(), "type");
        boolean register = switch (type) {
            case "batchRegisterInstance" -> true;
            case "batchDeregisterInstance" -> false;
            default ->
                throw new InvalidRequestException(
                        "type", "'" + type + "' is neither batchRegisterInstance nor batchDeregisterInstance");
        };
        JsonNode list = r.body().get("instances");
        if (list != null && !list.isNull() && !list.isArray()) {
            throw new InvalidRequestException("instances", "must be an array, not " + list.getNodeType());
        }
        List<Instance> instances = new ArrayList<>();
        if (list != null) {
            for (JsonNode n : list) {
                instances.add(instance(n, "instances", true));
            }
        }
        return new NamingOp.Batch(Names.service(r.fields()), register, instances);
    }

    static ServiceQuery serviceQuery(GrpcRequest r) {
        Fields q = r.fields();
        String cluster = q.get("cluster");
        return new ServiceQuery(
                Names.service(q), cluster == null ? "" : cluster, NamingFields.bool(q, "healthyOnly", false));
    }

    static NamingOp.Subscribe subscribe(GrpcRequest r) {
        Fields q = r.fields();
        String clusters = q.get("clusters");
        return new NamingOp.Subscribe(
                Names.service(q), clusters == null ? "" : clusters, NamingFields.bool(q, "subscribe", true));
    }

    /** Any page size the official clients send (Spring Cloud's {@code getServices()} asks for the largest int). */
    static NamingOp.ServiceList serviceList(GrpcRequest r) {
        Fields q = r.fields();
        String group = Names.group(q);
        return new NamingOp.ServiceList(
                Names.namespace(q),
                group == null ? ServiceKey.DEFAULT_GROUP : group,
                NamingFields.integer(q, "pageNo", 1, 1, Integer.MAX_VALUE),
                NamingFields.integer(q, "pageSize", 10, 1, Integer.MAX_VALUE));
    }

    /** An instance from a body's JSON object, by the same rules as over HTTP; its kind is the request type's. */
    private static Instance instance(JsonNode node, String field, boolean ephemeral) {
        if (node == null || node.isNull()) {
            throw InvalidRequestException.missing(field);
        }
        if (!node.isObject()) {
            throw new InvalidRequestException(field, "must be an object, not " + node.getNodeType());
        }
        JsonNode metadata = node.get("metadata");
        return NamingFields.instance(
                GrpcRequest.fields(node),
                metadata == null || metadata.isNull() ? Map.of() : NamingFields.fromJsonObject("metadata", metadata),
                ephemeral);
    }

    private static void refuseTag(String tag) {
        if (tag != null && !tag.isEmpty()) {
            throw new InvalidRequestException("tag", "tagged configs (the v2 gray form) are not supported");
        }
    }
}
