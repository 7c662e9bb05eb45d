package io.lodestar.config.transfer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

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
}
