package io.lodestar.api.v2;

import io.lodestar.api.http.Exchange;
import io.lodestar.api.http.Params;
import io.lodestar.api.request.ConfigOp;
import io.lodestar.api.request.Names;
import io.lodestar.api.request.NamingFields;
import io.lodestar.api.request.NamingOp;
import io.lodestar.config.ConfigKey;
import io.lodestar.config.PublishRequest;
import io.lodestar.error.InvalidRequestException;
import io.lodestar.naming.model.InstanceAddress;
import io.lodestar.naming.model.NamingValidation;
import io.lodestar.naming.model.ServiceKey;
import java.util.Locale;
import java.util.Set;

/**
 * The v2 API's one reader of requests: each becomes its typed request here, from Nacos 2's
 * spellings (namespace and group by {@link Names}, {@code configTags}, {@code casMd5} as a header,
 * {@code clusterName} for a list's clusters). Where v2 differs from v1, on purpose as Nacos does:
 * an absent required parameter is "parameter missing" (10000) before anything is validated; a
 * blank group is refused rather than defaulted; an unknown config type is stored as {@code text};
 * tagged (gray) configs are refused, not served untagged.
 */
final class V2Requests {
    /** Nacos's ConfigType values; any other type is stored as {@code text}, as Nacos does. */
    private static final Set<String> TYPES = Set.of("properties", "xml", "json", "text", "html", "yaml", "toml");

    private V2Requests() {}

    static ConfigOp.Read configRead(Exchange request) {
        return new ConfigOp.Read(configKey(request.params(), false));
    }

    static ConfigOp.Remove configRemove(Exchange request) {
        return new ConfigOp.Remove(configKey(request.params(), false));
    }

    static ConfigOp.Publish configPublish(Exchange request) {
        Params q = request.params();
        required(q, "dataId");
        required(q, "content");
        String type = q.get("type");
        type = type == null || !TYPES.contains(type.toLowerCase(Locale.ROOT)) ? "text" : type.toLowerCase(Locale.ROOT);
        PublishRequest publish = new PublishRequest(
                configKey(q, true),
                q.get("content"),
                type,
                q.get("appName"),
                q.get("desc"),
                q.get("configTags"),
                request.remoteAddr(),
                request.caller()); // the author is who logged in, never srcUser
        return new ConfigOp.Publish(publish, request.header("casMd5"), null);
    }

    static NamingOp.Register register(Exchange request) {
        Params q = filled(request.params(), "serviceName", "ip", "port");
        return new NamingOp.Register(Names.service(q), NamingFields.instance(q));
    }

    static NamingOp.Deregister deregister(Exchange request) {
        Params q = filled(request.params(), "serviceName", "ip", "port");
        return new NamingOp.Deregister(Names.service(q), address(q), NamingFields.bool(q, "ephemeral", true));
    }

    static NamingOp.InstanceQuery instance(Exchange request) {
        Params q = filled(request.params(), "serviceName", "ip", "port");
        return new NamingOp.InstanceQuery(Names.service(q), address(q));
    }

    static NamingOp.ListQuery list(Exchange request) {
        Params q = filled(request.params(), "serviceName");
        ServiceKey service = Names.service(q);
        String clusters = q.get("clusterName");
        clusters = clusters == null ? "" : clusters;
        Set<String> filter = NamingFields.clusterSet(clusters);
        for (String c : filter) {
            NamingValidation.checkCluster("clusterName", c);
        }
        return new NamingOp.ListQuery(service, clusters, filter, NamingFields.bool(q, "healthyOnly", false), 0);
    }

    private static InstanceAddress address(Params q) {
        return new InstanceAddress(NamingFields.cluster(q), NamingFields.required(q, "ip"), NamingFields.port(q));
    }

    /**
     * The config key; an absent dataId or group is "parameter missing", a present but invalid one
     * "parameter validate error" (a blank group too, but where {@code blankGroupIsMissing}: a publish).
     */
    private static ConfigKey configKey(Params q, boolean blankGroupIsMissing) {
        present(q, "dataId");
        String tag = q.get("tag");
        if (tag != null && !tag.isBlank()) {
            throw new InvalidRequestException("tag", "tagged configs are not supported yet");
        }
        if (Names.group(q) == null) {
            // v1 defaults an empty group; Nacos 2's v2 API refuses it
            if (blankGroupIsMissing || (q.get("group") == null && q.get("groupName") == null)) {
                throw InvalidRequestException.missing("group");
            }
            throw new InvalidRequestException("group", "must not be blank");
        }
        return Names.config(q);
    }

    private static Params present(Params q, String... names) {
        for (String name : names) {
            if (q.get(name) == null) {
                throw InvalidRequestException.missing(name);
            }
        }
        return q;
    }

    private static Params filled(Params q, String... names) {
        for (String name : names) {
            required(q, name);
        }
        return q;
    }

    private static void required(Params q, String name) {
        String value = q.get(name);
        if (value == null || value.isBlank()) {
            throw InvalidRequestException.missing(name);
        }
    }
}
