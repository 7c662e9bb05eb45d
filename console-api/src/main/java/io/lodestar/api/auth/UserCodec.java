package io.lodestar.api.auth;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;

/** A {@link User}'s stored form: a version byte, then the hash, the admin flag and the generation. */
final class UserCodec {
    private static final byte VERSION = 1;

    private UserCodec() {}

    static byte[] encode(User u) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(96);
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeByte(VERSION);
            out.writeUTF(u.passwordHash());
            out.writeBoolean(u.admin());
            out.writeLong(u.generation());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }

    static User decode(String username, byte[] value) {
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(value))) {
            byte version = in.readByte();
            if (version != VERSION) {
                throw new IllegalStateException("user record version " + version + ", this build reads " + VERSION);
            }
            return new User(username, in.readUTF(), in.readBoolean(), in.readLong());
        } catch (IOException e) {
            throw new UncheckedIOException("corrupt user record of " + username, e);
        }
    }
}
