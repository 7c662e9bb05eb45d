package io.lodestar.naming.model;

import io.lodestar.error.InvalidRequestException;

/**
 * Where a service lives: namespace, group and service name (without the group prefix). A blank
 * namespace is {@value #DEFAULT_NAMESPACE}, a blank group {@value #DEFAULT_GROUP}; every part is
 * checked by {@link NamingValidation}.
 *
 * <p>Nacos clients name a service by its grouped name {@code GROUP@@name}; {@link #of} accepts both
 * forms.
 */
public record ServiceKey(String namespace, String group, String service) {
    public static final String DEFAULT_NAMESPACE = "public";
    public static final String DEFAULT_GROUP = "DEFAULT_GROUP";
    public static final String GROUP_SEPARATOR = "@@";

    public ServiceKey {
        // "", "public" in any case and no namespace at all are the public namespace, as for configs
        namespace = namespace == null || namespace.isBlank() || namespace.equalsIgnoreCase(DEFAULT_NAMESPACE)
                ? DEFAULT_NAMESPACE
                : namespace;
        group = group == null || group.isBlank() ? DEFAULT_GROUP : group;
        NamingValidation.checkNamespace(namespace);
        NamingValidation.checkGroup(group);
        NamingValidation.checkServiceName(service);
        namespace = SharedNames.canonical(namespace);
        group = SharedNames.canonical(group);
    }

    /**
     * The key for a Nacos request's {@code namespaceId}, {@code groupName} and {@code serviceName}.
     * A service name of the form {@code GROUP@@name} carries its group: the separate group must then
     * be blank or the same group, else {@link InvalidRequestException} on {@code groupName}.
     */
    public static ServiceKey of(String namespace, String group, String serviceName) {
        if (serviceName == null || serviceName.isBlank()) {
            throw new InvalidRequestException("serviceName", "is required");
        }
        int split = serviceName.indexOf(GROUP_SEPARATOR);
        if (split < 0) {
            return new ServiceKey(namespace, group, serviceName);
        }
        String prefix = serviceName.substring(0, split);
        String name = serviceName.substring(split + GROUP_SEPARATOR.length());
        if (prefix.isEmpty() || name.isEmpty()) {
            throw new InvalidRequestException(
                    "serviceName", "'" + serviceName + "' should be 'groupName@@serviceName'");
        }
        if (group != null && !group.isBlank() && !group.equals(prefix)) {
            throw new InvalidRequestException(
                    "groupName",
                    "'" + group + "' disagrees with the group '" + prefix + "' in serviceName '" + serviceName + "'");
        }
        return new ServiceKey(namespace, prefix, name);
    }

    /** The key of a grouped name ({@code GROUP@@name}, or a bare name in the default group). */
    public static ServiceKey parse(String namespace, String groupedName) {
        return of(namespace, null, groupedName);
    }

    /** {@code GROUP@@name}: how Nacos clients key their caches. */
    public String groupedName() {
        return group + GROUP_SEPARATOR + service;
    }

    @Override
    public String toString() {
        return namespace + "/" + groupedName();
    }
}
