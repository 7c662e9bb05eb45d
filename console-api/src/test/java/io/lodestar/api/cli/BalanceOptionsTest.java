package io.lodestar.api.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lodestar.api.balance.BalanceSettings;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** The connection balance's options: their defaults, and each out-of-range value refused by name. */
class BalanceOptionsTest {
    private static BalanceOptions parse(String... args) {
        ServerCommand command = new ServerCommand();
        new CommandLine(command).parseArgs(args);
        return command.balance;
    }

    @Test
    void defaultsAreOnTwentyPercentTenOverAndFiveASecond() {
        assertEquals(new BalanceSettings(true, 20, 10, 5), parse().load());
        assertEquals(BalanceSettings.DEFAULT, parse().load());
        assertEquals(
                new BalanceSettings(false, 50, 3, 100),
                parse(
                                "--connection-balance",
                                "off",
                                "--connection-balance-slack",
                                "50",
                                "--connection-balance-min-excess",
                                "3",
                                "--connection-balance-rate",
                                "100")
                        .load());
    }

    @Test
    void anOutOfRangeValueIsRefusedNamingItsOption() {
        String[][] bad = {
            {"--connection-balance-slack", "-1"},
            {"--connection-balance-slack", "1001"},
            {"--connection-balance-min-excess", "0"},
            {"--connection-balance-rate", "0"},
            {"--connection-balance-rate", "10001"},
        };
        for (String[] args : bad) {
            String message = assertThrows(
                            IllegalArgumentException.class, () -> parse(args).load())
                    .getMessage();
            assertTrue(message.startsWith(args[0] + " "), String.join(" ", args) + ": " + message);
        }
        assertThrows(CommandLine.ParameterException.class, () -> parse("--connection-balance", "maybe"));
    }
}
