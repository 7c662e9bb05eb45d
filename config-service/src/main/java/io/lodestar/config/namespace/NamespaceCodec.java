package io.lodestar.config.namespace;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;

/** The stored form of a namespace: a version byte, then name, optional desc and the two times. The id is the key. */
final class NamespaceCodec {
    private static final byte VERSION = 1;

    private NamespaceCodec() {}

    static byte[] encode(Namespace ns) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(64);
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeByte(VERSION);
            out.writeUTF(ns.name());
            out.writeBoolean(ns.desc() != null);
            if (ns.desc() != null) {
                out.writeUTF(ns.desc());
            }
            out.writeLong(ns.createTime());
            out.writeLong(ns.modifyTime());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }

    static Namespace decode(String id, byte[] stored) {
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(stored))) {
            byte version = in.readByte();
            if (version != VERSION) {
                throw new IllegalStateException("unknown stored namespace version " + version + " for '" + id + "'");
            }
            String name = in.readUTF();
            String desc = in.readBoolean() ? in.readUTF() : null;
            return new Namespace(id, name, desc, in.readLong(), in.readLong());
        } catch (IOException e) {
            throw new UncheckedIOException("corrupt stored namespace '" + id + "'", e);
        }
    }
}
