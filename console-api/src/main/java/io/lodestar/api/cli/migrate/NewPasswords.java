package io.lodestar.api.cli.migrate;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.Base64;

/**
 * The passwords of the users {@code migrate} creates. Nacos keeps only password hashes and never
 * answers them, so a copied user gets a generated password (24 random characters), written as a
 * {@code username password} line to a file only its owner may read, never to the terminal; the
 * operator hands each user theirs, or sets new ones with {@code lodestar user passwd}. The line is
 * written before the user is created, so no created user's password is ever lost.
 */
final class NewPasswords {
    private static final SecureRandom RANDOM = new SecureRandom();
    private final Path file;

    NewPasswords(Path file) {
        this.file = file;
    }

    /** A new password for {@code username}, recorded in the file (created owner-only if absent). */
    String issue(String username) throws IOException {
        byte[] bytes = new byte[18];
        RANDOM.nextBytes(bytes);
        String password = Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
        if (!Files.exists(file)) {
            Files.createFile(file, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        }
        Files.writeString(
                file,
                username + " " + password + "\n",
                StandardCharsets.UTF_8,
                StandardOpenOption.APPEND,
                StandardOpenOption.SYNC);
        return password;
    }

    @Override
    public String toString() {
        return file.toString();
    }
}
