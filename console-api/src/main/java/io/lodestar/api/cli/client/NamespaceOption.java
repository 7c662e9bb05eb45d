package io.lodestar.api.cli.client;

import picocli.CommandLine.Option;

/** {@code --namespace}, for the commands on configs and services. */
public final class NamespaceOption {
    @Option(
            names = "--namespace",
            paramLabel = "ID",
            defaultValue = "",
            description = "The namespace's id (default: the public namespace).")
    String namespace;

    public String id() {
        return namespace;
    }
}
