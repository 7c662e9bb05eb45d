package io.lodestar.api.auth;

import io.lodestar.kv.codec.FieldInput;
import io.lodestar.kv.codec.FieldOutput;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.Base64;

/**
 * A {@link User}'s stored form: a version byte, then the hash, the admin flag, the generation and
 * the id. The id comes last and is optional: a build that predates it reads the fields before it
 * and ignores the rest, so nodes of both builds share one store during a rolling upgrade.
 *
 * <p>A record without an id (written before ids, or by such a build) reads with an id derived
 * from its password hash: every node derives the same one without a write, and it is as unique
 * as bcrypt's 128-bit random salt, which differs for every creation and every password change.
 */
final class UserCodec {
    private static final byte VERSION = 1;

    private UserCodec() {}

    static byte[] encode(User u) {
        try (FieldOutput out = new FieldOutput(128)) {
            out.writeByte(VERSION);
            out.writeUTF(u.passwordHash());
            out.writeBoolean(u.admin());
            out.writeLong(u.generation());
            out.writeUTF(u.id());
            return out.toByteArray();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static User decode(String username, byte[] value) {
        try (FieldInput in = new FieldInput(value)) {
            byte version = in.readByte("version");
            if (version != VERSION) {
                throw new IllegalStateException("user record version " + version + ", this build reads " + VERSION);
            }
            String hash = in.readUTF("passwordHash");
            boolean admin = in.readBoolean("admin");
            long generation = in.readLong("generation");
            String id = in.available() > 0 ? in.readUTF("id") : idOfRecordWithoutOne(hash);
            return new User(username, id, hash, admin, generation);
        } catch (IOException e) {
            throw new UncheckedIOException("corrupt user record of " + username, e);
        }
    }

    /** The id a record without one reads with: from its hash, so the same on every node. */
    static String idOfRecordWithoutOne(String passwordHash) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(passwordHash.getBytes(StandardCharsets.UTF_8));
            return Base64.getUrlEncoder().withoutPadding().encodeToString(Arrays.copyOf(digest, Users.ID_BYTES));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JVM has SHA-256", e);
        }
    }
}
