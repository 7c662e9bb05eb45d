package io.lodestar.config;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class ConfigKeyTest {
    @Test
    void publicIsTheOtherNameOfThePublicNamespaceAsNacosReadsIt() {
        // nacos-client 3.x names the public namespace "public", 2.x and 1.x name it ""
        ConfigKey empty = new ConfigKey("", "G", "app.yaml");
        assertEquals(empty, new ConfigKey("public", "G", "app.yaml"));
        assertEquals(empty, new ConfigKey("PUBLIC", "G", "app.yaml"));
        assertEquals(empty, new ConfigKey(null, "G", "app.yaml"));
        assertEquals("team-a", new ConfigKey("team-a", "G", "app.yaml").tenant());
    }
}
