package io.lodestar.api.cli.migrate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lodestar.api.cli.client.CommandFailure;
import io.lodestar.api.cli.client.ExitCodes;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@code --from}: the addresses taken, and a usage error naming the option for the others. */
class MigrateCommandTest {
    @Test
    void aSourceAddressWithOrWithoutSchemeOrContextPath() {
        assertEquals("http://nacos:8848", MigrateCommand.sourceUrl("http://nacos:8848"));
        assertEquals("http://nacos:8848", MigrateCommand.sourceUrl("nacos:8848"));
        assertEquals("https://nacos:8848", MigrateCommand.sourceUrl("https://nacos:8848/nacos/"));
        assertEquals("http://10.0.0.1:8848", MigrateCommand.sourceUrl(" http://10.0.0.1:8848/ "));
    }

    @Test
    void anythingElseIsAUsageErrorNamingFrom() {
        for (String bad : List.of(
                "", "ftp://nacos:21", "http://nacos:8848/other", "http://", "nacos:8848?x=1", "http://na cos:1")) {
            CommandFailure f = assertThrows(CommandFailure.class, () -> MigrateCommand.sourceUrl(bad), bad);
            assertEquals(ExitCodes.USAGE, f.exitCode(), bad);
            assertTrue(f.getMessage().startsWith("--from: "), f.getMessage());
        }
    }
}
