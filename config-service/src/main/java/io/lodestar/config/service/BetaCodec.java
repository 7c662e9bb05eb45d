package io.lodestar.config.service;

import io.lodestar.config.BetaConfig;
import io.lodestar.config.ConfigKey;
import io.lodestar.config.StoredFields;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
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
        byte[] bytes = content.getBytes(StandardCharsets.UTF_8);
        ByteArrayOutputStream buffer = new ByteArrayOutputStream(bytes.length + 64 + betaIps.size() * 16);
        try (DataOutputStream out = new DataOutputStream(buffer)) {
            out.writeByte(VERSION);
            out.writeInt(bytes.length);
            out.write(bytes);
            out.writeUTF(md5);
            out.writeShort(betaIps.size());
            for (String ip : betaIps) {
                out.writeUTF(ip);
            }
            StoredFields.writeOptional(out, srcIp);
            StoredFields.writeOptional(out, srcUser);
            out.writeLong(createTime);
            out.writeLong(modifyTime);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return buffer.toByteArray();
    }

    static BetaConfig decode(ConfigKey key, byte[] stored, long createRevision, long modRevision) {
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(stored))) {
            byte version = in.readByte();
            if (version != VERSION) {
                throw new IllegalStateException("unknown stored beta version " + version + " for " + key);
            }
            byte[] content = new byte[in.readInt()];
            in.readFully(content);
            String md5 = in.readUTF();
            int n = in.readUnsignedShort();
            List<String> ips = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                ips.add(in.readUTF());
            }
            String srcIp = StoredFields.readOptional(in);
            String srcUser = StoredFields.readOptional(in);
            long createTime = in.readLong();
            long modifyTime = in.readLong();
            return new BetaConfig(
                    key,
                    new String(content, StandardCharsets.UTF_8),
                    md5,
                    ips,
                    srcIp,
                    srcUser,
                    createTime,
                    modifyTime,
                    createRevision,
                    modRevision);
        } catch (IOException e) {
            throw new UncheckedIOException("corrupt stored beta " + key, e);
        }
    }
}
