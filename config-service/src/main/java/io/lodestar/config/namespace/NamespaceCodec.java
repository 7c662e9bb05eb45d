package io.lodestar.config.namespace;

import io.lodestar.kv.codec.FieldInput;
import io.lodestar.kv.codec.FieldOutput;
import java.io.IOException;
import java.io.UncheckedIOException;

/** The stored form of a namespace: a version byte, then name, optional desc and the two times. The id is the key. */
final class NamespaceCodec {
    private static final byte VERSION = 1;

    private NamespaceCodec() {}

    static byte[] encode(Namespace ns) {
        try (FieldOutput out = new FieldOutput(64)) {
            out.writeByte(VERSION);
            out.writeUTF(ns.name());
            out.writeOptionalUTF(ns.desc());
            out.writeLong(ns.createTime());
            out.writeLong(ns.modifyTime());
            return out.toByteArray();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static Namespace decode(String id, byte[] stored) {
        try (FieldInput in = new FieldInput(stored)) {
            byte version = in.readByte("version");
            if (version != VERSION) {
                throw new IllegalStateException("unknown stored namespace version " + version + " for '" + id + "'");
            }
            String name = in.readUTF("name");
            String desc = in.readOptionalUTF("desc");
            return new Namespace(id, name, desc, in.readLong("createTime"), in.readLong("modifyTime"));
        } catch (IOException e) {
            throw new UncheckedIOException("corrupt stored namespace '" + id + "'", e);
        }
    }
}
