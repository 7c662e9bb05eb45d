package io.lodestar.api.cli.naming;

import picocli.CommandLine.Command;

/**
 * {@code lodestar naming ...}: services and instances through the Nacos v1 naming API. There is
 * no {@code subscribers} verb: the server keeps its subscribers (UDP and gRPC) per node and serves
 * only their count ({@code subscribeCount} of {@code /nacos/v1/ns/operator/metrics}), no list.
 */
@Command(
        name = "naming",
        mixinStandardHelpOptions = true,
        description = "Register and deregister instances, list services and instances, watch a service.",
        subcommands = {RegisterInstance.class, DeregisterInstance.class, ListNaming.class, WatchService.class})
public final class NamingCommand {
    static final String INSTANCE = "/nacos/v1/ns/instance";
    static final String INSTANCES = "/nacos/v1/ns/instance/list";
}
