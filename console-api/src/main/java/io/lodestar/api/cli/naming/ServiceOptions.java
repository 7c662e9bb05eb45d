package io.lodestar.api.cli.naming;

import io.lodestar.api.cli.client.Call;
import io.lodestar.api.cli.client.NamespaceOption;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** Which service: {@code --service}, {@code --group}, {@code --namespace}. */
final class ServiceOptions {
    static final String DEFAULT_GROUP = "DEFAULT_GROUP";

    @Option(names = "--service", required = true, paramLabel = "NAME", description = "The service's name.")
    String service;

    @Option(
            names = "--group",
            defaultValue = DEFAULT_GROUP,
            paramLabel = "GROUP",
            description = "The service's group (default: ${DEFAULT-VALUE}).")
    String group;

    @Mixin
    NamespaceOption namespace;

    /** Adds the service as the v1 naming API names it. */
    Call on(Call call) {
        return call.param("serviceName", service).param("groupName", group).param("namespaceId", namespace.id());
    }

    @Override
    public String toString() {
        return group + "@@" + service;
    }
}
