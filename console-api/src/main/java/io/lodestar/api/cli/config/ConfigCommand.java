package io.lodestar.api.cli.config;

import picocli.CommandLine.Command;

/** {@code lodestar config ...}: configs through the Nacos v1 API and Lodestar's push channel. */
@Command(
        name = "config",
        mixinStandardHelpOptions = true,
        description = "Read, publish, delete, list and watch configs; their history and rollback.",
        subcommands = {
            GetConfig.class,
            PublishConfig.class,
            DeleteConfig.class,
            ListConfigs.class,
            ConfigHistory.class,
            RollbackConfig.class,
            ConfigListeners.class,
            WatchConfig.class
        })
public final class ConfigCommand {
    static final String CONFIGS = "/nacos/v1/cs/configs";
}
