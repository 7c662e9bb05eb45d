package io.lodestar.config.service;

import io.lodestar.config.Config;
import io.lodestar.config.ConfigKey;
import io.lodestar.config.PublishRequest;
import io.lodestar.config.StoredFields;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;

/**
 * The stored form of a config: a version byte, then its fields. Content is written as UTF-8
 * bytes with a length prefix (it can exceed {@code writeUTF}'s 64 KiB).
 */
final class ConfigCodec {
    private static final byte VERSION = 1;

    private ConfigCodec() {}

    static byte[] encode(PublishRequest r, String md5, long createTime, long modifyTime) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(r.content().length() + 128);
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeByte(VERSION);
            byte[] content = r.content().getBytes(java.nio.charset.StandardCharsets.UTF_8);
            out.writeInt(content.length);
            out.write(content);
            out.writeUTF(md5);
            StoredFields.writeOptional(out, r.type());
            StoredFields.writeOptional(out, r.appName());
            StoredFields.writeOptional(out, r.desc());
            StoredFields.writeOptional(out, r.tags());
            StoredFields.writeOptional(out, r.srcIp());
            StoredFields.writeOptional(out, r.srcUser());
            out.writeLong(createTime);
            out.writeLong(modifyTime);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }

    static Config decode(ConfigKey key, byte[] stored, long createRevision, long modRevision) {
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(stored))) {
            byte version = in.readByte();
            if (version != VERSION) {
                throw new IllegalStateException("unknown stored config version " + version + " for " + key);
            }
            byte[] content = new byte[in.readInt()];
            in.readFully(content);
            String md5 = in.readUTF();
            String type = StoredFields.readOptional(in);
            String appName = StoredFields.readOptional(in);
            String desc = StoredFields.readOptional(in);
            String tags = StoredFields.readOptional(in);
            String srcIp = StoredFields.readOptional(in);
            String srcUser = StoredFields.readOptional(in);
            long createTime = in.readLong();
            long modifyTime = in.readLong();
            return new Config(
                    key,
                    new String(content, java.nio.charset.StandardCharsets.UTF_8),
                    md5,
                    type,
                    appName,
                    desc,
                    tags,
                    srcIp,
                    srcUser,
                    createTime,
                    modifyTime,
                    createRevision,
                    modRevision);
        } catch (IOException e) {
            throw new UncheckedIOException("corrupt stored config " + key, e);
        }
    }
}
