package io.lodestar.config;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class ContentMd5Test {
    @Test
    void isTheLowercaseHexOfTheUtf8BytesAsNacosComputesIt() {
        assertEquals("5d41402abc4b2a76b9719d911017c592", ContentMd5.of("hello"));
        assertEquals("62e184d78972a6744fafc99b12cd3d9b", ContentMd5.of("配置 ü"));
        assertEquals("d41d8cd98f00b204e9800998ecf8427e", ContentMd5.of(""));
    }
}
