package io.lodestar.api.request;

import io.lodestar.config.ConfigKey;
import io.lodestar.naming.model.ServiceKey;

/**
 * What a request acts on, as permissions name it: a config or a service ({@code
 * namespace:group:kind/name}; {@code *} for "every group" or "every name" of a listing or a
 * search), the cluster, or the transfer (import and export) of a namespace's configs. The
 * namespace is always its canonical id: {@value Names#PUBLIC} for the public namespace, however the
 * request spelled it.
 */
public record Resource(String kind, String namespace, String group, String name) {
    public static final String CLUSTER = "cluster";
    public static final String TRANSFER = "transfer";
    static final String ALL = "*";

    /** The config at {@code key}. */
    public static Resource config(ConfigKey key) {
        return new Resource("config", Names.canonical(key.tenant()), key.group(), key.dataId());
    }

    /** Configs of a namespace: of one group and one dataId where given, else of all (a search). */
    public static Resource configs(String namespace, String group, String dataId) {
        return new Resource("config", Names.canonical(namespace), orAll(group), orAll(dataId));
    }

    /** The service at {@code key}. */
    public static Resource service(ServiceKey key) {
        return new Resource("naming", Names.canonical(key.namespace()), key.group(), key.service());
    }

    /** Every service of a group of a namespace (a listing). */
    public static Resource services(String namespace, String group) {
        return new Resource("naming", Names.canonical(namespace), group, ALL);
    }

    public static Resource cluster() {
        return new Resource(CLUSTER, null, null, null);
    }

    public static Resource transfer(String namespace) {
        return new Resource(TRANSFER, Names.canonical(namespace), null, null);
    }

    private static String orAll(String part) {
        return part == null || part.isBlank() ? ALL : part;
    }

    @Override
    public String toString() {
        return switch (kind) {
            case CLUSTER -> CLUSTER;
            case TRANSFER -> TRANSFER + ":" + namespace;
            default -> namespace + ":" + group + ":" + kind + "/" + name;
        };
    }
}
