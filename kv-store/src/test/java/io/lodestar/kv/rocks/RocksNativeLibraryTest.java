package io.lodestar.kv.rocks;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.rocksdb.RocksDB;
import org.rocksdb.util.Environment;

class RocksNativeLibraryTest {
    @TempDir
    Path cache;

    @Test
    void copiesTheJarsLibraryOnceAndReusesIt() throws Exception {
        Path dir = RocksNativeLibrary.cachedCopy(cache);
        assertNotNull(dir, "rocksdbjni's jar carries this platform's library");
        Path library = dir.resolve(Environment.getJniLibraryFileName("rocksdbjni"));
        assertArrayEquals(jarLibrary(), Files.readAllBytes(library));
        FileTime written = FileTime.fromMillis(1_000);
        Files.setLastModifiedTime(library, written);

        assertEquals(dir, RocksNativeLibrary.cachedCopy(cache));
        assertEquals(written, Files.getLastModifiedTime(library), "an intact copy is not written again");
        try (Stream<Path> files = Files.list(dir)) {
            assertEquals(1, files.count(), "no partial file is left behind");
        }
    }

    @Test
    void replacesATruncatedCopyAndRemovesOtherBuilds() throws Exception {
        Path dir = RocksNativeLibrary.cachedCopy(cache);
        Path library = dir.resolve(Environment.getJniLibraryFileName("rocksdbjni"));
        Files.write(library, new byte[] {1, 2, 3}); // as a crash in the middle of a copy might leave it
        Path older = Files.createDirectories(cache.resolve("rocksdbjni-0badc0de"));
        Files.write(older.resolve("librocksdbjni-old.so"), new byte[] {4});

        assertEquals(dir, RocksNativeLibrary.cachedCopy(cache));
        assertArrayEquals(jarLibrary(), Files.readAllBytes(library));
        assertFalse(Files.exists(older), "a copy from another build is removed");
    }

    @Test
    void loadKeepsItsCopyUnderTheGivenDirectory() throws Exception {
        RocksNativeLibrary.load(cache);
        assertTrue(RocksDB.rocksdbVersion().getMajor() > 0);
        try (Stream<Path> copies = Files.list(cache)) {
            Path dir = copies.filter(d -> d.getFileName().toString().startsWith("rocksdbjni-"))
                    .findFirst()
                    .orElseThrow();
            assertArrayEquals(
                    jarLibrary(), Files.readAllBytes(dir.resolve(Environment.getJniLibraryFileName("rocksdbjni"))));
        }
    }

    private static byte[] jarLibrary() throws Exception {
        try (InputStream in =
                RocksDB.class.getClassLoader().getResourceAsStream(Environment.getJniLibraryFileName("rocksdb"))) {
            return in.readAllBytes();
        }
    }
}
