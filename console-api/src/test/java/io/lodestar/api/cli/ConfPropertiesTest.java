package io.lodestar.api.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lodestar.api.limits.ByteSize;
import io.lodestar.api.limits.Limit;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Model.OptionSpec;

/**
 * conf/lodestar.properties, the operator's list of the settings of {@code lodestar server}, names
 * every option and every limit with its default, all commented out, so that the file and the
 * command cannot drift apart (as LimitsTest keeps docs/limits.md).
 */
class ConfPropertiesTest {
    private static final Path CONF = Path.of(System.getProperty("lodestar.repo", ".."), "conf", "lodestar.properties");
    private static final Pattern COMMENTED = Pattern.compile("^#\\s*([a-z][a-z0-9.-]*)\\s*=\\s*(.*)$");

    /** The commented-out settings: key to the value shown. */
    private static Map<String, String> commented() throws Exception {
        Map<String, String> settings = new LinkedHashMap<>();
        for (String line : Files.readAllLines(CONF)) {
            Matcher m = COMMENTED.matcher(line);
            if (m.matches()) {
                settings.put(m.group(1), m.group(2).trim());
            }
        }
        return settings;
    }

    @Test
    void listsEveryOptionOfServerWithItsDefault() throws Exception {
        Map<String, String> settings = commented();
        String text = Files.readString(CONF);
        ServerCommand command = new ServerCommand();
        new CommandLine(command);
        Map<String, OptionSpec> settable = ServerSettingSources.settable(command.spec);
        for (OptionSpec o : command.spec.options()) {
            String key = ServerSettingSources.key(o);
            if (o.usageHelp() || o.versionHelp()) {
                continue;
            }
            if (!settable.containsKey(key)) {
                assertTrue(text.contains(key), "conf/lodestar.properties says how " + key + " is given instead");
                continue;
            }
            assertTrue(settings.containsKey(key), "conf/lodestar.properties lists '# " + key + " = ...'");
            if (o.defaultValue() != null) {
                assertEquals(
                        o.defaultValue(), settings.get(key), "conf/lodestar.properties shows the default of " + key);
            }
            assertTrue(text.contains(ServerSettingSources.envName(key)), "names the variable of " + key);
        }
    }

    @Test
    void listsEveryLimitWithItsDefault() throws Exception {
        Map<String, String> settings = commented();
        String text = Files.readString(CONF);
        for (Limit l : Limit.values()) {
            assertTrue(settings.containsKey(l.key()), "conf/lodestar.properties lists '# " + l.key() + " = ...'");
            assertEquals(
                    l.defaultValue(),
                    ByteSize.parse(settings.get(l.key())),
                    "conf/lodestar.properties shows the default of " + l.key());
            assertTrue(text.contains(ServerSettingSources.envName(l)), "names the variable of " + l.key());
        }
    }

    @Test
    void asShippedItSetsNothing() throws Exception {
        assertEquals(Map.of(), SettingsFile.read(CONF).entries, "every line commented out");
    }
}
