package io.lodestar.config.listen;

import io.lodestar.config.ConfigKey;
import io.lodestar.error.InvalidRequestException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Parses the {@code Listening-Configs} value nacos-client 1.4.x sends: entries separated by
 * {@code \u0001}, each {@code dataId \u0002 group \u0002 md5} (public namespace) or {@code dataId
 * \u0002 group \u0002 md5 \u0002 tenant}. Blank entries are ignored (the value ends with a
 * separator). A key listed twice keeps its last MD5, as Nacos's map does.
 */
public final class ListeningConfigs {
    public static final String FIELD = "Listening-Configs";
    /** Nacos clients send at most 3000 per request (one task per 3000 listened configs). */
    public static final int MAX_ENTRIES = 3000;

    static final char ENTRY_SEPARATOR = '\u0001';
    static final char FIELD_SEPARATOR = '\u0002';
    private static final int MAX_MD5_LENGTH = 64;

    private ListeningConfigs() {}

    /**
     * The entries of the form parameter's {@code value} as a request carries it: Nacos URL-decodes
     * it once more after form decoding, so this does too before {@link #parse}.
     */
    public static List<ListeningEntry> parseParam(String value) {
        String decoded;
        try {
            decoded = value == null ? null : URLDecoder.decode(value, StandardCharsets.UTF_8);
        } catch (IllegalArgumentException e) {
            throw new InvalidRequestException(FIELD, "bad URL encoding: " + e.getMessage());
        }
        return parse(decoded);
    }

    /**
     * The entries of {@code value}, in order of first appearance.
     *
     * @throws InvalidRequestException (field {@value #FIELD}) when the value is missing or blank,
     *     an entry has other than 3 or 4 fields, a dataId, group or tenant is illegal, or there are
     *     more than {@value #MAX_ENTRIES} entries
     */
    public static List<ListeningEntry> parse(String value) {
        if (value == null || value.isBlank()) {
            throw new InvalidRequestException(FIELD, "is required");
        }
        Map<ConfigKey, ListeningEntry> entries = new LinkedHashMap<>();
        int index = 0;
        for (String raw : value.split(String.valueOf(ENTRY_SEPARATOR), -1)) {
            if (raw.isBlank()) {
                continue;
            }
            index++;
            if (index > MAX_ENTRIES) {
                throw new InvalidRequestException(FIELD, "more than " + MAX_ENTRIES + " entries in one request");
            }
            ListeningEntry entry = entry(raw, index);
            entries.remove(entry.key());
            entries.put(entry.key(), entry);
        }
        if (entries.isEmpty()) {
            throw new InvalidRequestException(FIELD, "has no entries");
        }
        return new ArrayList<>(entries.values());
    }

    private static ListeningEntry entry(String raw, int index) {
        String[] fields = raw.split(String.valueOf(FIELD_SEPARATOR), -1);
        if (fields.length != 3 && fields.length != 4) {
            throw new InvalidRequestException(
                    FIELD,
                    "entry " + index + " has " + fields.length
                            + " fields; expected dataId, group, md5 and optionally tenant, separated by \\u0002");
        }
        String md5 = fields[2];
        if (md5.length() > MAX_MD5_LENGTH) {
            throw new InvalidRequestException(
                    FIELD, "entry " + index + ": md5 longer than " + MAX_MD5_LENGTH + " characters");
        }
        ConfigKey key;
        try {
            key = new ConfigKey(fields.length == 4 ? fields[3] : "", fields[1], fields[0]);
        } catch (InvalidRequestException e) {
            throw new InvalidRequestException(FIELD, "entry " + index + ": " + e.getMessage());
        }
        return new ListeningEntry(key, md5);
    }
}
