package io.lodestar.api.cli;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;

/**
 * Files holding a secret (the cluster secret, the metrics token, the TLS key): refused unless only
 * their owner may read them, since anyone else on the host could read the secret too. Each refusal
 * is an {@link IllegalArgumentException} naming the file and what to do.
 */
final class OwnerOnlyFiles {
    private OwnerOnlyFiles() {}

    /** Passes if neither the group nor others have any access to {@code file}. */
    static void check(Path file) {
        Set<PosixFilePermission> mode;
        try {
            mode = Files.getPosixFilePermissions(file);
        } catch (IOException e) {
            throw cannotRead(file, e);
        }
        if (mode.stream().anyMatch(p -> p.name().startsWith("GROUP") || p.name().startsWith("OTHERS"))) {
            throw new IllegalArgumentException(
                    file + " is readable by others (" + PosixFilePermissions.toString(mode) + "); chmod 600 it");
        }
    }

    /** The trimmed, non-empty text of {@code file}, which must pass {@link #check}. */
    static byte[] readTrimmed(Path file) {
        check(file);
        String text;
        try {
            text = Files.readString(file, StandardCharsets.UTF_8).trim();
        } catch (IOException e) {
            throw cannotRead(file, e);
        }
        if (text.isEmpty()) {
            throw new IllegalArgumentException(file + " is empty");
        }
        return text.getBytes(StandardCharsets.UTF_8);
    }

    private static IllegalArgumentException cannotRead(Path file, IOException e) {
        String why = e instanceof NoSuchFileException ? "no such file" : e.getMessage();
        return new IllegalArgumentException("cannot read " + file + ": " + why, e);
    }
}
