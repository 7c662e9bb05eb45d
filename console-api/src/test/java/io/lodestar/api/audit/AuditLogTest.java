package io.lodestar.api.audit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The audit log's lines as written to its file. */
class AuditLogTest {
    @TempDir
    Path dir;

    @Test
    void namesWithControlCharactersStayInsideTheirOneJsonLine() throws Exception {
        String principal = "x\n2026-12-05 12:00:00 WARN forged";
        String resource = "public:G:config/a\r\n{\"principal\":\"nacos\"}\u001b[0m";
        try (AuditLog audit = AuditLog.open(dir)) {
            audit.record(principal, "127.0.0.1", "POST /nacos/v1/cs/configs", List.of(resource), 200);
        }
        List<String> lines = Files.readAllLines(dir.resolve("audit/audit.log"));
        assertEquals(1, lines.size(), String.join("\n", lines));
        JsonNode line = new ObjectMapper().readTree(lines.get(0));
        assertEquals(principal, line.get("principal").asText());
        assertEquals(resource, line.get("resources").get(0).asText());
        assertEquals(200, line.get("outcome").asInt());
    }

    @Test
    void aRequestNamingHugeOrManyResourcesWritesABoundedLine() throws Exception {
        String huge = "public:G:config/" + "a".repeat(1_600_000);
        List<String> many = Collections.nCopies(10_000, "public:G:config/x");
        try (AuditLog audit = AuditLog.open(dir)) {
            audit.record("b".repeat(100_000), "127.0.0.1", "POST /nacos/v1/cs/configs/listener", List.of(huge), 403);
            audit.record("alice", "127.0.0.1", "POST /nacos/v1/cs/configs/listener", many, 403);
        }
        List<String> lines = Files.readAllLines(dir.resolve("audit/audit.log"));
        assertEquals(2, lines.size());
        for (String text : lines) {
            assertTrue(text.length() < 20_000, "a line of " + text.length());
        }
        JsonNode first = new ObjectMapper().readTree(lines.get(0));
        assertTrue(first.get("resources").get(0).asText().endsWith("...(1600016 chars)"));
        JsonNode second = new ObjectMapper().readTree(lines.get(1));
        assertEquals(AuditLog.MAX_RESOURCES, second.get("resources").size());
        assertEquals(
                10_000 - AuditLog.MAX_RESOURCES,
                second.get("resourcesNotListed").asInt());
    }
}
