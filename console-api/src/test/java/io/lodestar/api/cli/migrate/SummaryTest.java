package io.lodestar.api.cli.migrate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.lodestar.api.cli.client.Output;
import io.lodestar.api.cli.migrate.Summary.Kind;
import io.lodestar.api.cli.migrate.Summary.Outcome;
import io.lodestar.api.json.Json;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The report: counts per kind and outcome, each change as a line, every failure with its reason. */
class SummaryTest {
    @Test
    void countsEachOutcomePerKindAndListsFailuresWithTheirReason() {
        Summary s = new Summary(false);
        s.record(Kind.CONFIGS, "public/G/a", Diff.CREATE);
        s.record(Kind.CONFIGS, "public/G/b", new Diff(Diff.Action.UPDATE, List.of("content")));
        s.record(Kind.CONFIGS, "public/G/c", Diff.UNCHANGED);
        assertFalse(s.anyFailed());
        s.failed(Kind.USERS, "bob", "no password");
        assertTrue(s.anyFailed());
        assertEquals(1, s.count(Kind.CONFIGS, Outcome.CREATED));
        assertEquals(1, s.count(Kind.CONFIGS, Outcome.UPDATED));
        assertEquals(1, s.count(Kind.CONFIGS, Outcome.UNCHANGED));
        assertEquals(1, s.count(Kind.USERS, Outcome.FAILED));
        assertEquals(2, s.changes().size());

        String table = print(s, Output.Format.TABLE);
        assertTrue(table.contains("kind         created  updated  unchanged  failed"), table);
        assertTrue(table.contains("configs      1        1        1          0"), table);
        assertTrue(table.contains("failed user bob: no password"), table);
        assertEquals(
                "updated config public/G/b (content)", s.describe(s.changes().get(1)));
    }

    @Test
    void aDryRunSaysWhatWouldChange() throws Exception {
        Summary s = new Summary(true);
        Summary.Line line = s.record(Kind.SERVICES, "dev/G/orders", Diff.CREATE);
        assertEquals("would create service dev/G/orders", s.describe(line));
        assertTrue(print(s, Output.Format.TABLE).startsWith("dry run: nothing was written"));
        JsonNode json = Json.MAPPER.readTree(print(s, Output.Format.JSON));
        assertTrue(json.get("dryRun").asBoolean());
        assertEquals("created", json.get("changes").get(0).get("outcome").asText());
        assertEquals(8, json.get("summary").size());
    }

    private static String print(Summary s, Output.Format format) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8);
        s.print(new Output(format, out), out);
        return bytes.toString(StandardCharsets.UTF_8);
    }
}
