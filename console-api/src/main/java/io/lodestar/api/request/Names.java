package io.lodestar.api.request;

import io.lodestar.config.ConfigKey;
import io.lodestar.error.InvalidRequestException;
import io.lodestar.naming.model.ServiceKey;
import java.util.List;
import java.util.Locale;

/**
 * How every protocol names a namespace and a group: the one table, and the one reading of it.
 *
 * <table>
 *   <caption>The names read, in every protocol (HTTP v1 and v2, gRPC bodies)</caption>
 *   <tr><th>field</th><th>names</th><th>what Nacos itself reads</th></tr>
 *   <tr><td>namespace</td><td>{@code tenant}, {@code namespaceId}, {@code namespace}</td>
 *       <td>{@code tenant}: v1 configs, gRPC configs; {@code namespaceId}: v2, v1 naming;
 *       {@code namespace}: gRPC naming, v1 import</td></tr>
 *   <tr><td>group</td><td>{@code group}, {@code groupName}, and the {@code GROUP@@} prefix of a
 *       {@code serviceName}</td><td>{@code group}: configs; {@code groupName}: naming</td></tr>
 * </table>
 *
 * <p>Every name is read in every protocol, so that no request can show the access check one
 * namespace and the handler another: when a request gives more than one of a field's names and
 * they disagree, it is refused with a 400 naming both, never resolved by picking one. The public
 * namespace is spelled {@code ""}, {@code public} (in any case) or not at all, and all three are
 * {@value #PUBLIC} here, in the check, in both stores, in DNS and in the push channel.
 */
public final class Names {
    /** The public namespace's canonical id. */
    public static final String PUBLIC = ServiceKey.DEFAULT_NAMESPACE;

    static final List<String> NAMESPACE = List.of("tenant", "namespaceId", "namespace");
    static final List<String> GROUP = List.of("group", "groupName");
    private static final String SERVICE = "serviceName";

    private Names() {}

    /** The namespace's canonical id: {@value #PUBLIC} for the public namespace however it is spelled. */
    public static String canonical(String namespace) {
        return namespace == null
                        || namespace.isBlank()
                        || namespace.toLowerCase(Locale.ROOT).equals(PUBLIC)
                ? PUBLIC
                : namespace;
    }

    /** The namespace as the config store keys it: empty for the public one. */
    public static String tenant(String namespace) {
        String id = canonical(namespace);
        return id.equals(PUBLIC) ? "" : id;
    }

    /** The namespace the request names (canonical), refusing two names that disagree. */
    public static String namespace(Fields fields) {
        String name = null;
        String value = null;
        for (String candidate : NAMESPACE) {
            String v = fields.get(candidate);
            if (v == null) {
                continue;
            }
            if (name != null && !canonical(v).equals(canonical(value))) {
                throw disagree(name, value, candidate, v);
            }
            name = candidate;
            value = v;
        }
        return canonical(value);
    }

    /** The group the request names, or null when it names none (or only a blank one). */
    public static String group(Fields fields) {
        String name = null;
        String value = null;
        for (String candidate : GROUP) {
            String v = blankToNull(fields.get(candidate));
            if (v == null) {
                continue;
            }
            if (name != null && !v.equals(value)) {
                throw disagree(name, value, candidate, v);
            }
            name = candidate;
            value = v;
        }
        return value;
    }

    /** The config the request names by its namespace, {@code group} and {@code dataId}. */
    public static ConfigKey config(Fields fields) {
        return new ConfigKey(tenant(namespace(fields)), group(fields), fields.get("dataId"));
    }

    /**
     * The service the request names by its namespace, group and {@code serviceName}; a {@code
     * GROUP@@name} service name carries its group, which must then agree with any group named apart.
     */
    public static ServiceKey service(Fields fields) {
        String namespace = namespace(fields);
        String group = group(fields);
        String serviceName = fields.get(SERVICE);
        if (serviceName == null || serviceName.isBlank()) {
            throw new InvalidRequestException(SERVICE, "is required");
        }
        int split = serviceName.indexOf(ServiceKey.GROUP_SEPARATOR);
        if (split >= 0 && group != null) {
            String prefix = serviceName.substring(0, split);
            if (!prefix.equals(group)) {
                throw disagree(groupNameUsed(fields), group, SERVICE, serviceName);
            }
        }
        return ServiceKey.of(namespace, group, serviceName);
    }

    private static String groupNameUsed(Fields fields) {
        return blankToNull(fields.get("groupName")) != null ? "groupName" : "group";
    }

    private static String blankToNull(String value) {
        return value == null || value.isBlank() ? null : value;
    }

    private static InvalidRequestException disagree(String name, String value, String other, String otherValue) {
        return new InvalidRequestException(
                name,
                "'" + name + "' is '" + shorten(value) + "' but '" + other + "' is '" + shorten(otherValue)
                        + "': they name different things; name it once");
    }

    /** A value quoted in an error message, cut so a huge field does not make a huge answer. */
    public static String shorten(String s) {
        return s == null || s.length() <= 64 ? s : s.substring(0, 64) + "...";
    }
}
