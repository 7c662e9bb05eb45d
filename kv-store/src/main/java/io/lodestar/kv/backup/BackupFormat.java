package io.lodestar.kv.backup;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.DigestInputStream;
import java.security.DigestOutputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Writes and reads the snapshot file:
 *
 * <pre>
 *   "LODESTAR-SNAPSHOT\n"  int32 format  int32 n  n bytes of header ("key=value\n", UTF-8)
 *   then per file: 'F'  name (modified UTF-8, as DataOutput writes it)  int64 length  the bytes
 *   'E'  SHA-256 of every byte before it (32 bytes)
 * </pre>
 *
 * The format comes right after the magic so that a file of a newer format is named as such, not as
 * damaged. Reading checks everything before it trusts anything: the magic, the format, each name
 * (a plain file name, never a path), each length, the end marker, the digest, and that nothing
 * follows it.
 */
public final class BackupFormat {
    /** The format this build writes and the newest it reads. */
    public static final int VERSION = 1;

    private static final byte[] MAGIC = "LODESTAR-SNAPSHOT\n".getBytes(StandardCharsets.US_ASCII);
    private static final int FILE = 'F';
    private static final int END = 'E';
    private static final int MAX_HEADER_BYTES = 1 << 20;
    private static final Pattern FILE_NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,127}");

    private BackupFormat() {}

    /** The header and the files a snapshot file holds, with their sizes. */
    public record Contents(BackupHeader header, Map<String, Long> files) {
        public long bytes() {
            return files.values().stream().mapToLong(Long::longValue).sum();
        }
    }

    /** Writes {@code header} and every regular file of {@code dir} to {@code out}; does not close it. */
    public static void write(BackupHeader header, Path dir, OutputStream out) throws IOException {
        MessageDigest sha = sha256();
        DataOutputStream data =
                new DataOutputStream(new DigestOutputStream(new BufferedOutputStream(out, 1 << 16), sha));
        data.write(MAGIC);
        data.writeInt(header.format());
        StringBuilder text = new StringBuilder();
        header.fields().forEach((k, v) -> text.append(k).append('=').append(v).append('\n'));
        byte[] headerBytes = text.toString().getBytes(StandardCharsets.UTF_8);
        data.writeInt(headerBytes.length);
        data.write(headerBytes);
        List<Path> files;
        try (Stream<Path> list = Files.list(dir)) {
            files = list.filter(Files::isRegularFile).sorted().toList();
        }
        for (Path file : files) {
            data.writeByte(FILE);
            data.writeUTF(file.getFileName().toString());
            data.writeLong(Files.size(file));
            Files.copy(file, data);
        }
        data.writeByte(END);
        data.flush();
        out.write(sha.digest());
        out.flush();
    }

    /** Reads the whole file and checks it; nothing is written anywhere. */
    public static Contents verify(Path file) throws IOException, BackupFormatException {
        return read(file, null);
    }

    /**
     * Reads the file into {@code target} (an existing empty directory), checking it as it goes.
     * Call {@link #verify} first: a file found damaged here has left part of itself in {@code
     * target}, which the caller deletes.
     */
    public static Contents extract(Path file, Path target) throws IOException, BackupFormatException {
        return read(file, target);
    }

    private static Contents read(Path file, Path target) throws IOException, BackupFormatException {
        MessageDigest sha = sha256();
        long size = Files.size(file);
        try (InputStream raw = new BufferedInputStream(Files.newInputStream(file), 1 << 16)) {
            DigestInputStream digesting = new DigestInputStream(raw, sha);
            DataInputStream in = new DataInputStream(digesting);
            try {
                byte[] magic = in.readNBytes(MAGIC.length);
                if (!Arrays.equals(magic, MAGIC)) {
                    throw new BackupFormatException(file + " is not a Lodestar snapshot file");
                }
                int format = in.readInt();
                if (format > VERSION || format < 1) {
                    throw new BackupFormatException(file + " is of snapshot format " + format
                            + ", newer than this build reads (" + VERSION + "): restore it with a newer lodestar");
                }
                int headerLength = in.readInt();
                if (headerLength < 0 || headerLength > MAX_HEADER_BYTES) {
                    throw new BackupFormatException(file + " is damaged: a header of " + headerLength + " bytes");
                }
                byte[] headerBytes = new byte[headerLength];
                in.readFully(headerBytes);
                BackupHeader header = parseHeader(file, format, new String(headerBytes, StandardCharsets.UTF_8));
                Map<String, Long> files = new LinkedHashMap<>();
                for (int kind = in.readUnsignedByte(); kind != END; kind = in.readUnsignedByte()) {
                    if (kind != FILE) {
                        throw new BackupFormatException(
                                file + " is damaged: unexpected byte " + kind + " where a file begins");
                    }
                    String name = in.readUTF();
                    long length = in.readLong();
                    if (!FILE_NAME.matcher(name).matches() || files.containsKey(name)) {
                        throw new BackupFormatException(file + " is damaged: a file named '" + name + "'");
                    }
                    // one longer than the rest of the file ends in an EOF below: truncated
                    if (length < 0) {
                        throw new BackupFormatException(file + " is damaged: " + name + " of " + length + " bytes");
                    }
                    copy(in, length, target == null ? null : target.resolve(name));
                    files.put(name, length);
                }
                byte[] expected = sha.digest();
                digesting.on(false);
                byte[] stored = new byte[expected.length];
                in.readFully(stored);
                if (!MessageDigest.isEqual(expected, stored)) {
                    throw new BackupFormatException(file + " is damaged: its SHA-256 does not match its content");
                }
                if (in.read() != -1) {
                    throw new BackupFormatException(file + " is damaged: bytes follow its checksum");
                }
                return new Contents(header, files);
            } catch (EOFException e) {
                throw new BackupFormatException(file + " is truncated: it ends after " + size + " bytes");
            }
        }
    }

    private static void copy(DataInputStream in, long length, Path target) throws IOException {
        byte[] buf = new byte[1 << 16];
        try (OutputStream out = target == null ? OutputStream.nullOutputStream() : Files.newOutputStream(target)) {
            for (long left = length; left > 0; ) {
                int n = (int) Math.min(buf.length, left);
                in.readFully(buf, 0, n);
                out.write(buf, 0, n);
                left -= n;
            }
        }
    }

    private static BackupHeader parseHeader(Path file, int format, String text) throws BackupFormatException {
        Map<String, String> fields = new LinkedHashMap<>();
        Map<String, Long> keys = new LinkedHashMap<>();
        for (String line : text.split("\n")) {
            int eq = line.indexOf('=');
            if (eq < 1) {
                throw new BackupFormatException(file + " is damaged: header line '" + line + "'");
            }
            fields.put(line.substring(0, eq), line.substring(eq + 1));
        }
        try {
            for (Map.Entry<String, String> f : fields.entrySet()) {
                if (f.getKey().startsWith("keys.")) {
                    keys.put(f.getKey().substring(5), Long.parseLong(f.getValue()));
                }
            }
            return new BackupHeader(
                    format,
                    Long.parseLong(required(file, fields, "revision")),
                    Long.parseLong(required(file, fields, "applied-index")),
                    Instant.parse(required(file, fields, "created")),
                    fields.getOrDefault("cluster-id", ""),
                    fields.getOrDefault("node", ""),
                    keys);
        } catch (NumberFormatException | DateTimeParseException e) {
            throw new BackupFormatException(file + " is damaged: header value " + e.getMessage());
        }
    }

    private static String required(Path file, Map<String, String> fields, String key) throws BackupFormatException {
        String v = fields.get(key);
        if (v == null) {
            throw new BackupFormatException(file + " is damaged: its header has no " + key);
        }
        return v;
    }

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java runtime has SHA-256", e);
        }
    }
}
