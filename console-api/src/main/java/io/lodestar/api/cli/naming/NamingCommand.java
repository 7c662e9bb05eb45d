package io.lodestar.api.cli.naming;

import picocli.CommandLine.Command;

/** {@code lodestar naming ...}: services, instances and subscribers through the Nacos v1 naming API. */
@Command(
        name = "naming",
        mixinStandardHelpOptions = true,
        description =
                "Register and deregister instances, list services, instances and subscribers," + " watch a service.",
        subcommands = {
            RegisterInstance.class,
            DeregisterInstance.class,
            ListNaming.class,
            ServiceSubscribers.class,
            WatchService.class
        })
public final class NamingCommand {
    static final String INSTANCE = "/nacos/v1/ns/instance";
    static final String INSTANCES = "/nacos/v1/ns/instance/list";
}
