package io.lodestar.naming.query;

import io.lodestar.naming.model.Instance;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The checksum of a list of instances: lowercase hex MD5 of a canonical form, so two nodes holding
 * the same instances (in any order, with metadata in any order) compute the same value, and any
 * visible difference (weight, health, enabled, metadata, id) changes it.
 *
 * <p>Canonical form: the instances sorted by cluster, ip and port; each written as length-prefixed
 * UTF-8 fields (so no value can be mistaken for a separator) and its metadata sorted by key.
 */
public final class Checksums {
    private static final Comparator<Instance> ORDER =
            Comparator.comparing(Instance::cluster).thenComparing(Instance::ip).thenComparingInt(Instance::port);

    private Checksums() {}

    public static String of(List<Instance> instances) {
        MessageDigest md5 = md5();
        List<Instance> sorted = new ArrayList<>(instances);
        sorted.sort(ORDER);
        try (DataOutputStream out = new DataOutputStream(new DigestSink(md5))) {
            out.writeInt(sorted.size());
            for (Instance i : sorted) {
                write(out, i.cluster());
                write(out, i.ip());
                out.writeInt(i.port());
                write(out, i.instanceId() == null ? "" : i.instanceId());
                out.writeDouble(i.weight());
                out.writeBoolean(i.healthy());
                out.writeBoolean(i.enabled());
                out.writeBoolean(i.ephemeral());
                Map<String, String> metadata = new TreeMap<>(i.metadata());
                out.writeInt(metadata.size());
                for (Map.Entry<String, String> e : metadata.entrySet()) {
                    write(out, e.getKey());
                    write(out, e.getValue());
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return HexFormat.of().formatHex(md5.digest());
    }

    private static void write(DataOutputStream out, String s) throws IOException {
        byte[] bytes = s.getBytes(java.nio.charset.StandardCharsets.UTF_8);
        out.writeInt(bytes.length);
        out.write(bytes);
    }

    private static MessageDigest md5() {
        try {
            return MessageDigest.getInstance("MD5");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Feeds written bytes to a digest without buffering them. */
    private static final class DigestSink extends OutputStream {
        private final MessageDigest digest;

        DigestSink(MessageDigest digest) {
            this.digest = digest;
        }

        @Override
        public void write(int b) {
            digest.update((byte) b);
        }

        @Override
        public void write(byte[] b, int off, int len) {
            digest.update(b, off, len);
        }
    }
}
