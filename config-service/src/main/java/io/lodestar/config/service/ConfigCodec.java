package io.lodestar.config.service;

import io.lodestar.config.Config;
import io.lodestar.config.ConfigKey;
import io.lodestar.config.PublishRequest;
import io.lodestar.kv.codec.FieldInput;
import io.lodestar.kv.codec.FieldOutput;
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
        try (FieldOutput out = new FieldOutput(r.content().length() + 128)) {
            out.writeByte(VERSION);
            out.writeString(r.content());
            out.writeUTF(md5);
            out.writeOptionalUTF(r.type());
            out.writeOptionalUTF(r.appName());
            out.writeOptionalUTF(r.desc());
            out.writeOptionalUTF(r.tags());
            out.writeOptionalUTF(r.srcIp());
            out.writeOptionalUTF(r.srcUser());
            out.writeLong(createTime);
            out.writeLong(modifyTime);
            return out.toByteArray();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static Config decode(ConfigKey key, byte[] stored, long createRevision, long modRevision) {
        try (FieldInput in = new FieldInput(stored)) {
            byte version = in.readByte("version");
            if (version != VERSION) {
                throw new IllegalStateException("unknown stored config version " + version + " for " + key);
            }
            String content = in.readString("content");
            String md5 = in.readUTF("md5");
            String type = in.readOptionalUTF("type");
            String appName = in.readOptionalUTF("appName");
            String desc = in.readOptionalUTF("desc");
            String tags = in.readOptionalUTF("tags");
            String srcIp = in.readOptionalUTF("srcIp");
            String srcUser = in.readOptionalUTF("srcUser");
            long createTime = in.readLong("createTime");
            long modifyTime = in.readLong("modifyTime");
            return new Config(
                    key,
                    content,
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
