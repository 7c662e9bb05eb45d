package io.lodestar.api.cli.naming;

import picocli.CommandLine.Command;

/**
 * {@code lodestar naming ...}: services and instances through the Nacos v1 naming API. {@code
 * subscribers} can show only what the server serves: each node's count of UDP subscriptions, no
 * list per service.
 */
@Command(
        name = "naming",
        mixinStandardHelpOptions = true,
        description = "Register and deregister instances, list services and instances, count subscribers,"
                + " watch a service.",
        subcommands = {
            RegisterInstance.class,
            DeregisterInstance.class,
            ListNaming.class,
            NodeSubscribers.class,
            WatchService.class
        })
public final class NamingCommand {
    static final String INSTANCE = "/nacos/v1/ns/instance";
    static final String INSTANCES = "/nacos/v1/ns/instance/list";
}
