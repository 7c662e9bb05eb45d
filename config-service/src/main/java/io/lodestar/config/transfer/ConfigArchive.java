package io.lodestar.config.transfer;

import io.lodestar.config.ConfigKey;
import io.lodestar.error.InvalidRequestException;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.zip.ZipEntry;
import java.util.zip.ZipException;
import java.util.zip.ZipInputStream;
import java.util.zip.ZipOutputStream;

/**
 * Nacos's config export archive: a zip with one entry per config named {@code group/dataId} holding
 * the content (UTF-8), plus a metadata entry at the root: {@value #METADATA_V2} (a YAML list of
 * dataId, group, type, appName, desc; written by {@code exportV2}) or {@value #METADATA_V1} (lines
 * {@code group.dataId.app=appName}, the last '.' of the dataId written '~'; written by
 * {@code export}).
 *
 * <p>Reading is for untrusted uploads: every problem (not a zip, an entry name that is not a
 * legal {@code group/dataId}, path traversal, too many entries, an entry or the whole larger than
 * the {@link ArchiveLimits} once inflated — counted while inflating, whatever the headers declare —,
 * a nested archive, text that is not UTF-8, bad metadata) is an {@link InvalidRequestException} on
 * field {@value #FIELD} naming the problem, raised before the caller writes anything.
 */
public final class ConfigArchive {
    static final String SEPARATOR = "/";
    public static final String METADATA_V1 = ".meta.yml";
    public static final String METADATA_V2 = ".metadata.yml";
    static final String FIELD = "file";
    private static final byte[] ZIP_MAGIC = {'P', 'K', 3, 4};
    private static final byte[] EMPTY_ZIP_MAGIC = {'P', 'K', 5, 6};

    private ConfigArchive() {}

    /** What an archive holds: its configs, and the entries that named no config. */
    public record Contents(List<ArchivedConfig> configs, List<String> unrecognized) {}

    /**
     * Writes an archive to a stream one config at a time: each config's content goes out as it is
     * added, and only what the metadata file needs (no content) is kept until {@link #finish()}.
     * Nothing is written to the stream before the first {@link #add}.
     */
    public static final class Writer {
        private final ZipOutputStream zip;
        private final boolean v2;
        private final List<ArchivedConfig> described = new ArrayList<>();

        /** {@code v2} picks the metadata file. */
        public Writer(OutputStream out, boolean v2) {
            this.zip = new ZipOutputStream(out, StandardCharsets.UTF_8);
            this.v2 = v2;
        }

        public void add(ArchivedConfig c) throws IOException {
            zip.putNextEntry(new ZipEntry(c.entryName()));
            zip.write(c.content().getBytes(StandardCharsets.UTF_8));
            zip.closeEntry();
            described.add(new ArchivedConfig(c.group(), c.dataId(), "", c.type(), c.appName(), c.desc()));
        }

        /** Writes the metadata file and the zip's directory; the stream stays open. */
        public void finish() throws IOException {
            String metadata = v2 ? MetadataYaml.write(described) : metadataV1(described);
            if (metadata != null) {
                zip.putNextEntry(new ZipEntry(v2 ? METADATA_V2 : METADATA_V1));
                zip.write(metadata.getBytes(StandardCharsets.UTF_8));
                zip.closeEntry();
            }
            zip.finish();
        }
    }

    /** Nacos v1: only configs with an appName are listed; null when none is. */
    private static String metadataV1(List<ArchivedConfig> configs) {
        StringBuilder out = new StringBuilder();
        for (ArchivedConfig c : configs) {
            if (c.appName() != null && !c.appName().isBlank()) {
                out.append(v1Key(c.group(), c.dataId()))
                        .append('=')
                        .append(c.appName())
                        .append("\r\n");
            }
        }
        return out.length() == 0 ? null : out.toString();
    }

    private static String v1Key(String group, String dataId) {
        int dot = dataId.lastIndexOf('.');
        String id = dot < 0 ? dataId : dataId.substring(0, dot) + "~" + dataId.substring(dot + 1);
        return group + "." + id + ".app";
    }

    /** Reads an uploaded archive within {@code limits}; see the class comment for what is rejected. */
    public static Contents read(byte[] zip, ArchiveLimits limits) {
        if (zip == null || zip.length == 0) {
            throw bad("is empty");
        }
        if (zip.length > limits.maxArchiveBytes()) {
            throw bad(zip.length + " bytes exceeds the limit of " + limits.maxArchiveBytes() + " bytes");
        }
        if (startsWith(zip, EMPTY_ZIP_MAGIC)) {
            throw bad("holds no configs");
        }
        if (!startsWith(zip, ZIP_MAGIC)) {
            throw bad("is not a zip archive");
        }
        Map<String, String> files = new LinkedHashMap<>();
        String metadataName = null;
        String metadata = null;
        int entries = 0;
        long total = 0;
        try (ZipInputStream in = new ZipInputStream(new ByteArrayInputStream(zip), StandardCharsets.UTF_8)) {
            ZipEntry entry;
            while ((entry = in.getNextEntry()) != null) {
                if (++entries > limits.maxEntries()) {
                    throw bad("has more than " + limits.maxEntries() + " entries");
                }
                String name = entry.getName();
                boolean isMetadata = name.equals(METADATA_V1) || name.equals(METADATA_V2);
                if (!isMetadata && checkName(name)) {
                    continue; // a directory entry "group/"
                }
                if (entry.getSize() > limits.maxEntryBytes()) {
                    throw bad("entry '" + name + "' declares " + entry.getSize() + " bytes, over the limit of "
                            + limits.maxEntryBytes() + " bytes");
                }
                byte[] data = inflate(in, name, limits.maxEntryBytes());
                total += data.length;
                if (total > limits.maxTotalBytes()) {
                    throw bad("inflates to more than " + limits.maxTotalBytes() + " bytes in all");
                }
                if (startsWith(data, ZIP_MAGIC) || startsWith(data, EMPTY_ZIP_MAGIC)) {
                    throw bad("entry '" + name + "' is itself a zip archive; nested archives are not accepted");
                }
                String text = utf8(name, data);
                if (isMetadata) {
                    if (metadataName != null) {
                        throw bad("holds more than one metadata file");
                    }
                    metadataName = name;
                    metadata = text;
                } else {
                    if (text.isBlank()) {
                        throw bad("entry '" + name + "' is empty; a config needs content");
                    }
                    if (files.put(name, text) != null) {
                        throw bad("entry '" + name + "' appears twice");
                    }
                }
            }
        } catch (ZipException e) {
            throw bad("is not a valid zip archive: " + e.getMessage());
        } catch (IllegalArgumentException e) { // ZipInputStream: an entry name that is not UTF-8
            throw bad("has an entry name that cannot be read: " + e.getMessage());
        } catch (IOException e) {
            throw bad("cannot be read: " + e.getMessage());
        }
        if (entries == 0) {
            throw bad("is not a zip archive or holds no entries");
        }
        Contents contents = METADATA_V2.equals(metadataName) ? withV2(files, metadata) : withV1(files, metadata);
        if (contents.configs().isEmpty()) {
            throw bad("holds no configs");
        }
        return contents;
    }

    /**
     * Checks an entry name; true for a directory entry ({@code group/}) to skip. A config entry is
     * {@code group/dataId}, both legal Nacos names: no absolute path, backslash, '.' or '..'.
     */
    private static boolean checkName(String name) {
        if (name.isEmpty()) {
            throw bad("has an entry with an empty name");
        }
        if (name.indexOf('\\') >= 0) {
            throw bad("entry '" + name + "' contains a backslash");
        }
        if (name.startsWith("/")
                || (name.length() > 1 && name.charAt(1) == ':' && Character.isLetter(name.charAt(0)))) {
            throw bad("entry '" + name + "' is an absolute path");
        }
        String[] parts = name.split(SEPARATOR, -1);
        for (String part : parts) {
            if (part.equals("..") || part.equals(".")) {
                throw bad("entry '" + name + "' contains a path traversal ('" + part + "')");
            }
        }
        boolean directory = parts.length == 2 && parts[1].isEmpty();
        if (parts.length != 2 || parts[0].isEmpty() || (parts[1].isEmpty() && !directory)) {
            throw bad("entry '" + name + "' is not named group/dataId");
        }
        try {
            new ConfigKey("", parts[0], directory ? "x" : parts[1]);
        } catch (InvalidRequestException e) {
            throw bad("entry '" + name + "' is not a legal group/dataId: " + e.getMessage());
        }
        if (parts[0].length() > 0 && !parts[0].equals(parts[0].strip())) {
            throw bad("entry '" + name + "' is not a legal group/dataId");
        }
        return directory;
    }

    /** Inflates the current entry, counting the bytes: stops as soon as they pass {@code max}. */
    private static byte[] inflate(ZipInputStream in, String name, int max) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        byte[] buffer = new byte[16 << 10];
        long count = 0;
        int n;
        while ((n = in.read(buffer)) != -1) {
            count += n;
            if (count > max) {
                throw bad("entry '" + name + "' inflates to more than " + max + " bytes");
            }
            out.write(buffer, 0, n);
        }
        return out.toByteArray();
    }

    private static String utf8(String name, byte[] data) {
        try {
            return StandardCharsets.UTF_8
                    .newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(data))
                    .toString();
        } catch (CharacterCodingException e) {
            throw bad("entry '" + name + "' is not UTF-8 text");
        }
    }

    private static Contents withV1(Map<String, String> files, String metadata) {
        Map<String, String> appNames = new HashMap<>();
        if (metadata != null) {
            for (String line : metadata.split("[\r\n]+")) {
                if (line.isBlank()) {
                    continue;
                }
                String[] kv = line.split("=");
                if (kv.length != 2) {
                    throw bad(METADATA_V1 + " has a line that is not key=value: '" + abbreviate(line) + "'");
                }
                appNames.put(kv[0], kv[1]);
            }
        }
        List<ArchivedConfig> configs = new ArrayList<>();
        for (Map.Entry<String, String> f : files.entrySet()) {
            String[] gd = f.getKey().split(SEPARATOR);
            configs.add(new ArchivedConfig(gd[0], gd[1], f.getValue(), null, appNames.get(v1Key(gd[0], gd[1])), null));
        }
        return new Contents(configs, List.of());
    }

    /** As Nacos: a file the metadata does not list, or a listed config without file, is unrecognized. */
    private static Contents withV2(Map<String, String> files, String metadata) {
        List<Map<String, String>> items;
        try {
            items = MetadataYaml.read(metadata);
        } catch (IllegalArgumentException e) {
            throw bad(METADATA_V2 + " is not valid: " + e.getMessage());
        }
        List<ArchivedConfig> configs = new ArrayList<>();
        List<String> unrecognized = new ArrayList<>();
        Set<String> listed = new HashSet<>();
        for (Map<String, String> item : items) {
            String dataId = item.get("dataId");
            String group = item.get("group");
            String type = item.get("type");
            if (isBlank(dataId) || isBlank(group) || isBlank(type)) {
                throw bad(METADATA_V2 + " has an item without dataId, group or type");
            }
            String name = group + SEPARATOR + dataId;
            if (!listed.add(name)) {
                throw bad(METADATA_V2 + " lists '" + name + "' twice");
            }
            String content = files.get(name);
            if (content == null) {
                unrecognized.add("not found in the archive: " + name);
                continue;
            }
            configs.add(new ArchivedConfig(group, dataId, content, type, item.get("appName"), item.get("desc")));
        }
        for (String name : files.keySet()) {
            if (!listed.contains(name)) {
                unrecognized.add("not found in the metadata: " + name);
            }
        }
        return new Contents(configs, unrecognized);
    }

    private static boolean isBlank(String s) {
        return s == null || s.isBlank();
    }

    private static boolean startsWith(byte[] data, byte[] magic) {
        if (data.length < magic.length) {
            return false;
        }
        for (int i = 0; i < magic.length; i++) {
            if (data[i] != magic[i]) {
                return false;
            }
        }
        return true;
    }

    private static String abbreviate(String s) {
        return s.length() <= 80 ? s : s.substring(0, 80) + "...";
    }

    private static InvalidRequestException bad(String what) {
        return new InvalidRequestException(FIELD, "the archive " + what);
    }
}
