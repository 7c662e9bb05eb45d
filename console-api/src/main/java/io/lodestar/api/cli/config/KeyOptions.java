package io.lodestar.api.cli.config;

import io.lodestar.api.cli.client.Call;
import io.lodestar.api.cli.client.NamespaceOption;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** Which config: {@code --data-id}, {@code --group}, {@code --namespace}. */
final class KeyOptions {
    static final String DEFAULT_GROUP = "DEFAULT_GROUP";

    @Option(names = "--data-id", required = true, paramLabel = "ID", description = "The config's dataId.")
    String dataId;

    @Option(
            names = "--group",
            defaultValue = DEFAULT_GROUP,
            paramLabel = "GROUP",
            description = "The config's group (default: ${DEFAULT-VALUE}).")
    String group;

    @Mixin
    NamespaceOption namespace;

    /** Adds the key as the v1 API names it ({@code dataId}, {@code group}, {@code tenant}). */
    Call on(Call call) {
        return call.param("dataId", dataId).param("group", group).param("tenant", namespace.id());
    }
}
