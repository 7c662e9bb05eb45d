package io.lodestar.config.transfer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The metadata file as Nacos's exportV2 writes it (SnakeYAML dumpAsMap) and as we write it. */
class MetadataYamlTest {
    @Test
    void readsNacosFlowItemsIncludingOnesWrappedAtEightyColumns() {
        String nacos = "metadata:\n"
                + "- {appName: shop, dataId: app.yaml, desc: the shop, group: DEFAULT_GROUP, type: yaml}\n"
                + "- {dataId: db.properties, desc: 'it''s long enough to be wrapped by the emitter at\n"
                + "    eighty columns', group: G2, type: properties}\n"
                + "- {dataId: x, group: G, type: text, desc: \"a \\\"quoted\\\" \\u00e9\"}\n";
        List<Map<String, String>> items = MetadataYaml.read(nacos);
        assertEquals(3, items.size());
        assertEquals(
                Map.of(
                        "appName",
                        "shop",
                        "dataId",
                        "app.yaml",
                        "desc",
                        "the shop",
                        "group",
                        "DEFAULT_GROUP",
                        "type",
                        "yaml"),
                items.get(0));
        assertEquals(
                "it's long enough to be wrapped by the emitter at eighty columns",
                items.get(1).get("desc"));
        assertEquals("a \"quoted\" é", items.get(2).get("desc"));
    }

    @Test
    void readsBlockItemsAndRoundTripsWhatItWrites() {
        List<ArchivedConfig> configs = List.of(
                new ArchivedConfig(
                        "G", "a.yaml", "c", "yaml", "app", "desc: with {flow} chars, # and \"quotes\"\nline2"),
                new ArchivedConfig("G", "b", "c", "text", null, null));
        List<Map<String, String>> items = MetadataYaml.read(MetadataYaml.write(configs));
        assertEquals(
                Map.of(
                        "appName",
                        "app",
                        "dataId",
                        "a.yaml",
                        "desc",
                        "desc: with {flow} chars, # and \"quotes\"\nline2",
                        "group",
                        "G",
                        "type",
                        "yaml"),
                items.get(0));
        assertEquals(Map.of("dataId", "b", "group", "G", "type", "text"), items.get(1));
        assertEquals(
                List.of(Map.of("dataId", "x", "group", "G", "type", "json")),
                MetadataYaml.read("# exported\nmetadata:\n  - dataId: x   # comment\n    group: G\n    type: json\n"));
    }

    @Test
    void rejectsWhatItCannotRead() {
        assertThrows(IllegalArgumentException.class, () -> MetadataYaml.read("other: 1\n"));
        assertThrows(IllegalArgumentException.class, () -> MetadataYaml.read("metadata:\n- {dataId: \"open\n"));
        assertThrows(IllegalArgumentException.class, () -> MetadataYaml.read("metadata:\n- {dataId: [x]}\n"));
    }

    @Test
    void refusesAliasesSoABillionLaughsNeverExpands() {
        StringBuilder bomb = new StringBuilder("a0: &a0 [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n");
        for (int i = 1; i < 10; i++) {
            bomb.append("a").append(i).append(": &a").append(i).append(" [");
            bomb.append(("*a" + (i - 1) + ",").repeat(9))
                    .append("*a")
                    .append(i - 1)
                    .append("]\n");
        }
        bomb.append("metadata:\n- {dataId: *a9, group: G, type: text}\n");
        assertRefused(bomb.toString(), "expected 'metadata:'");
        assertRefused("metadata:\n- &x {dataId: d, group: G, type: text}\n- *x\n", "anchors and aliases");
        assertRefused("metadata:\n- {dataId: &d d, group: *d, type: text}\n", "anchors and aliases");
    }

    @Test
    void refusesTagsSoNoTypeIsEverNamed() {
        assertRefused(
                "metadata:\n- {dataId: !!javax.script.ScriptEngineManager [!!java.net.URLClassLoader [[]]],"
                        + " group: G, type: text}\n",
                "tags are not allowed");
        assertRefused("metadata:\n- dataId: !!str d\n  group: G\n  type: text\n", "tags are not allowed");
        assertRefused("metadata: !!seq\n- {dataId: d, group: G, type: text}\n", "tags are not allowed");
        assertRefused("!<tag:yaml.org,2002:map>\nmetadata: []\n", "tags are not allowed");
    }

    @Test
    void stopsAtTheFirstLevelDeeperThanTheFileHas() {
        String deep = "metadata: [" + "[".repeat(200_000) + "]".repeat(200_000) + "]\n";
        assertRefused(deep, "expected an item");
        assertRefused("metadata:\n- {dataId: {a: {b: c}}, group: G, type: text}\n", "expected a value");
        assertRefused("metadata:\n- dataId:\n  - x\n", "expected a value");
    }

    @Test
    void refusesADocumentOverTheCodePointLimit() {
        String item = "- {dataId: d%d, group: G, type: text, desc: '%s'}\n";
        StringBuilder huge = new StringBuilder("metadata:\n");
        for (int i = 0; huge.length() < 20_000; i++) {
            huge.append(String.format(item, i, "x".repeat(100)));
        }
        assertEquals(
                huge.length() > 0, MetadataYaml.read(huge.toString(), 40_000).size() > 100);
        IllegalArgumentException e =
                assertThrows(IllegalArgumentException.class, () -> MetadataYaml.read(huge.toString(), 10_000));
        assertTrue(e.getMessage().contains("exceeds the limit"), e.getMessage());
    }

    @Test
    void readsOneDocumentWithOnlyTheMetadataKey() {
        assertEquals(List.of(), MetadataYaml.read("---\nmetadata:\n"));
        assertEquals(List.of(), MetadataYaml.read("\uFEFFmetadata: []\n"));
        assertRefused("metadata: []\n---\nmetadata: []\n", "a single document");
        assertRefused("metadata: []\nother: 1\n", "nothing but 'metadata:'");
        assertRefused("", "expected 'metadata:'");
        assertRefused("metadata:\n- just a string\n", "expected an item");
    }

    private static void assertRefused(String yaml, String messagePart) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> MetadataYaml.read(yaml));
        assertTrue(e.getMessage().contains(messagePart), e.getMessage());
    }
}
