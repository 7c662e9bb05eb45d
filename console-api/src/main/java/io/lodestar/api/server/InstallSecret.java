package io.lodestar.api.server;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.HexFormat;

/**
 * A secret generated once per install and kept in the data directory (owner-only), used where the
 * operator gave none. Never a default baked into the code.
 */
final class InstallSecret {
    private InstallSecret() {}

    static byte[] loadOrCreate(Path dataDir) {
        Path file = dataDir.resolve("cluster.secret");
        try {
            Files.createDirectories(dataDir);
            if (!Files.exists(file)) {
                byte[] random = new byte[32];
                new SecureRandom().nextBytes(random);
                try {
                    Files.createFile(
                            file, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
                    Files.writeString(file, HexFormat.of().formatHex(random), StandardCharsets.UTF_8);
                } catch (FileAlreadyExistsException raced) {
                    // another start won; read theirs
                }
            }
            return Files.readString(file, StandardCharsets.UTF_8).trim().getBytes(StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read or create " + file + ": " + e.getMessage(), e);
        }
    }
}
