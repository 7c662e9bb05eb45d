package io.lodestar.config.service;

import io.lodestar.config.BetaConfig;
import io.lodestar.config.ConfigKey;
import io.lodestar.kv.codec.FieldInput;
import io.lodestar.kv.codec.FieldOutput;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;

/**
 * The stored form of a {@link BetaConfig}: a version byte, the content (length-prefixed UTF-8),
 * md5, the IP count and IPs, source IP and user (optional), create and modify time.
 */
final class BetaCodec {
    private static final byte VERSION = 1;

    private BetaCodec() {}

    static byte[] encode(
            String content,
            String md5,
            List<String> betaIps,
            String srcIp,
            String srcUser,
            long createTime,
            long modifyTime) {
        try (FieldOutput out = new FieldOutput(content.length() + 64 + betaIps.size() * 16)) {
            out.writeByte(VERSION);
            out.writeString(content);
            out.writeUTF(md5);
            out.writeShort(betaIps.size());
            for (String ip : betaIps) {
                out.writeUTF(ip);
            }
            out.writeOptionalUTF(srcIp);
            out.writeOptionalUTF(srcUser);
            out.writeLong(createTime);
            out.writeLong(modifyTime);
            return out.toByteArray();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static BetaConfig decode(ConfigKey key, byte[] stored, long createRevision, long modRevision) {
        try (FieldInput in = new FieldInput(stored)) {
            byte version = in.readByte("version");
            if (version != VERSION) {
                throw new IllegalStateException("unknown stored beta version " + version + " for " + key);
            }
            String content = in.readString("content");
            String md5 = in.readUTF("md5");
            int n = in.readUnsignedShort("betaIps count");
            List<String> ips = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                ips.add(in.readUTF("betaIps"));
            }
            String srcIp = in.readOptionalUTF("srcIp");
            String srcUser = in.readOptionalUTF("srcUser");
            long createTime = in.readLong("createTime");
            long modifyTime = in.readLong("modifyTime");
            return new BetaConfig(
                    key, content, md5, ips, srcIp, srcUser, createTime, modifyTime, createRevision, modRevision);
        } catch (IOException e) {
            throw new UncheckedIOException("corrupt stored beta " + key, e);
        }
    }
}
