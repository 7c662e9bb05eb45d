package io.lodestar.api.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

class DataDirPermissionsTest {
    @TempDir
    Path tmp;

    private final Logger logger = (Logger) LoggerFactory.getLogger(DataDirPermissions.class);
    private final ListAppender<ILoggingEvent> lines = new ListAppender<>();

    @BeforeEach
    void captureLog() {
        lines.start();
        logger.addAppender(lines);
    }

    @AfterEach
    void releaseLog() {
        logger.detachAppender(lines);
    }

    @Test
    void aMissingDataDirIsCreatedReadableByItsOwnerOnly() throws IOException {
        Path dataDir = tmp.resolve("parent").resolve("data");
        DataDirPermissions.secure(dataDir);
        assertEquals("rwx------", mode(dataDir));
    }

    @Test
    void filesAndDirectoriesCreatedAfterwardAreBornOwnerOnly() throws IOException {
        Path dataDir = tmp.resolve("data");
        DataDirPermissions.secure(dataDir);
        // created the way RocksDB, JRaft and logback create theirs: with no mode of their own
        Path dir = Files.createDirectories(dataDir.resolve("raft").resolve("snapshot"));
        Path file = Files.writeString(dir.resolve("000009.sst"), "token key and password hashes");
        assertEquals("rwx------", mode(dir));
        assertEquals("rw-------", mode(file));
    }

    @Test
    void aWorldReadableTreeIsTightenedAndEachPathTightenedIsLogged() throws IOException {
        Path dataDir = Files.createDirectories(tmp.resolve("data"));
        Path kv = Files.createDirectories(dataDir.resolve("kv").resolve("gen-1"));
        Path sst = Files.writeString(kv.resolve("000012.sst"), "hashes");
        Path tight = Files.writeString(dataDir.resolve("cluster.secret"), "secret");
        Files.setPosixFilePermissions(tight, PosixFilePermissions.fromString("rw-------"));
        for (Path p : List.of(dataDir, kv.getParent(), kv)) {
            Files.setPosixFilePermissions(p, PosixFilePermissions.fromString("rwxr-xr-x"));
        }
        Files.setPosixFilePermissions(sst, PosixFilePermissions.fromString("rw-rw-rw-"));

        DataDirPermissions.secure(dataDir);

        try (Stream<Path> all = Files.walk(dataDir)) {
            for (Path p : all.toList()) {
                assertEquals(Files.isDirectory(p) ? "rwx------" : "rw-------", mode(p), p.toString());
            }
        }
        List<String> logged = lines.list.stream()
                .map(ILoggingEvent::getFormattedMessage)
                .filter(m -> m.startsWith("tightened "))
                .toList();
        for (Path p : List.of(dataDir, kv.getParent(), kv, sst)) {
            assertTrue(logged.stream().anyMatch(m -> m.startsWith("tightened " + p + " from")), p + " in " + logged);
        }
        assertEquals(4, logged.size(), "only the paths it changed: " + logged);
    }

    @Test
    void aPathThatCannotBeTightenedStopsTheStartNamingIt() throws IOException {
        Path dataDir = Files.createDirectories(tmp.resolve("data"));
        // a file whose mode not even root may change: the walk follows links, as an operator's
        // link to another disk is followed
        Path link = Files.createSymbolicLink(dataDir.resolve("status"), Path.of("/proc/self/status"));

        IllegalStateException refused =
                assertThrows(IllegalStateException.class, () -> DataDirPermissions.secure(dataDir));
        assertTrue(refused.getMessage().contains(link.toString()), refused.getMessage());
    }

    private static String mode(Path p) throws IOException {
        return PosixFilePermissions.toString(Files.getPosixFilePermissions(p));
    }
}
