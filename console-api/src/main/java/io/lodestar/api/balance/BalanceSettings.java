package io.lodestar.api.balance;

/**
 * How a node balances nacos-client connections with the other members (docs/grpc.md, "Connection
 * balance"): {@code on}; a node moves clients away once it holds more than {@code share} (its even
 * part, rounded up) by both {@code slackPercent} percent and {@code minExcess} connections; it
 * moves at most {@code movesPerSecond} clients a second.
 */
public record BalanceSettings(boolean on, int slackPercent, int minExcess, int movesPerSecond) {
    public static final int DEFAULT_SLACK_PERCENT = 20;
    public static final int DEFAULT_MIN_EXCESS = 10;
    public static final int DEFAULT_MOVES_PER_SECOND = 5;
    public static final BalanceSettings DEFAULT =
            new BalanceSettings(true, DEFAULT_SLACK_PERCENT, DEFAULT_MIN_EXCESS, DEFAULT_MOVES_PER_SECOND);

    /** Throws {@link IllegalArgumentException} naming the setting that is out of range. */
    public BalanceSettings {
        if (slackPercent < 0 || slackPercent > 1000) {
            throw new IllegalArgumentException(
                    "--connection-balance-slack must be 0 to 1000 (percent), got " + slackPercent);
        }
        if (minExcess < 1) {
            throw new IllegalArgumentException("--connection-balance-min-excess must be at least 1, got " + minExcess);
        }
        if (movesPerSecond < 1 || movesPerSecond > 10_000) {
            throw new IllegalArgumentException(
                    "--connection-balance-rate must be 1 to 10000 (clients a second), got " + movesPerSecond);
        }
    }
}
