package io.lodestar.api.cli;

import io.lodestar.api.balance.BalanceSettings;
import picocli.CommandLine.Option;

/** {@code --connection-balance} and its companions: evening out nacos-client connections across members. */
final class BalanceOptions {
    @Option(
            names = "--connection-balance",
            defaultValue = "on",
            description = "Move nacos-client 2.x/3.x connections from this node to less loaded members once it"
                    + " holds more than its share (after a rolling restart), with ConnectResetRequest: on or off"
                    + " (default: ${DEFAULT-VALUE}). docs/grpc.md, 'Connection balance'.")
    ServerCommand.Switch on;

    @Option(
            names = "--connection-balance-slack",
            defaultValue = "" + BalanceSettings.DEFAULT_SLACK_PERCENT,
            paramLabel = "PERCENT",
            description = "How far above its even share (in percent) a node may hold connections before it moves"
                    + " some (default: ${DEFAULT-VALUE}).")
    int slackPercent;

    @Option(
            names = "--connection-balance-min-excess",
            defaultValue = "" + BalanceSettings.DEFAULT_MIN_EXCESS,
            paramLabel = "N",
            description = "And by at least this many connections, so that small counts never move"
                    + " (default: ${DEFAULT-VALUE}).")
    int minExcess;

    @Option(
            names = "--connection-balance-rate",
            defaultValue = "" + BalanceSettings.DEFAULT_MOVES_PER_SECOND,
            paramLabel = "N",
            description = "The most clients a node moves a second (default: ${DEFAULT-VALUE}).")
    int movesPerSecond;

    /** The settings; an {@link IllegalArgumentException} names the option out of range. */
    BalanceSettings load() {
        return new BalanceSettings(on == ServerCommand.Switch.on, slackPercent, minExcess, movesPerSecond);
    }
}
