package io.lodestar.config.service;

import io.lodestar.config.Config;
import io.lodestar.config.ConfigKey;
import io.lodestar.config.ConfigKeyspaces;
import io.lodestar.error.InvalidRequestException;
import io.lodestar.kv.KvEntry;
import io.lodestar.kv.KvStore;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;

/**
 * Finds the configs of one namespace that match a {@link Query}, as Nacos's config search does.
 *
 * <p>{@link Mode#ACCURATE} compares each given field exactly. {@link Mode#BLUR} reads dataId,
 * group and tags as patterns in which {@code *} stands for any run of characters (Nacos turns
 * {@code *} into SQL {@code %}); a pattern without {@code *} is an exact match, as Nacos's
 * {@code LIKE} is. Unlike SQL, {@code _} is a literal here, not a one-character wildcard. A config
 * passes the tag filter if it carries <em>any</em> of the given tags (Nacos joins the tag table
 * with {@code IN (...)}). appName is always exact; the tenant is always exact.
 *
 * <p>Results are ordered by dataId, then group (Nacos leaves the order to the database). Reads this
 * node's replica, walking the whole namespace: the time grows with the namespace's size, the heap
 * with the number of matches' keys and the page.
 */
public final class ConfigSearch {
    public static final int MAX_PAGE_SIZE = 500;

    public enum Mode {
        ACCURATE,
        BLUR
    }

    /** Null or empty dataId, group, appName mean "any"; an empty tag list means "any". */
    public record Query(Mode mode, String tenant, String dataId, String group, String appName, List<String> tags) {
        public Query {
            tenant = tenant == null ? "" : tenant;
            tags = tags == null ? List.of() : List.copyOf(tags);
        }
    }

    public record Page(int totalCount, int pageNumber, int pagesAvailable, List<Config> items) {}

    private final KvStore store;

    public ConfigSearch(KvStore store) {
        this.store = store;
    }

    /** The {@code pageNo}-th page (from 1) of at most {@code pageSize} (1..500) matches. */
    public Page search(Query query, int pageNo, int pageSize) {
        if (pageNo < 1) {
            throw new InvalidRequestException("pageNo", "must be at least 1, got " + pageNo);
        }
        if (pageSize < 1 || pageSize > MAX_PAGE_SIZE) {
            throw new InvalidRequestException(
                    "pageSize", "must be between 1 and " + MAX_PAGE_SIZE + ", got " + pageSize);
        }
        // The namespace is walked by key, a batch of keys at a time, and a value is read only to
        // filter by appName or tags, one at a time; the page's configs are then read by key. So the
        // heap holds the matches' keys and one config, never the namespace.
        boolean byMetadata = (query.appName() != null && !query.appName().isEmpty())
                || !query.tags().isEmpty();
        List<ConfigKey> matches = new ArrayList<>();
        store.forEachKey(ConfigKeyspaces.CONFIG, ConfigKey.tenantPrefix(query.tenant()), storeKey -> {
            ConfigKey key = ConfigKey.fromStoreKey(storeKey);
            if (!matches(query.mode(), query.dataId(), key.dataId())
                    || !matches(query.mode(), query.group(), key.group())) {
                return true;
            }
            if (byMetadata) {
                Config config = read(key);
                if (config == null
                        || !appNameMatches(query.appName(), config.appName())
                        || !tagsMatch(query, config.tags())) {
                    return true;
                }
            }
            matches.add(key);
            return true;
        });
        matches.sort(Comparator.comparing(ConfigKey::dataId).thenComparing(ConfigKey::group));
        int first = (int) Math.min((long) (pageNo - 1) * pageSize, matches.size());
        int to = Math.min(first + pageSize, matches.size());
        int pages = (matches.size() + pageSize - 1) / pageSize;
        List<Config> items = new ArrayList<>();
        for (ConfigKey key : matches.subList(first, to)) {
            Config config = read(key);
            if (config != null) { // deleted since the walk: left out of the page
                items.add(config);
            }
        }
        return new Page(matches.size(), pageNo, pages, List.copyOf(items));
    }

    private Config read(ConfigKey key) {
        KvEntry e = store.get(ConfigKeyspaces.CONFIG, key.storeKey());
        return e == null ? null : ConfigCodec.decode(key, e.value(), e.createRevision(), e.modRevision());
    }

    private static boolean matches(Mode mode, String wanted, String actual) {
        if (wanted == null || wanted.isEmpty()) {
            return true;
        }
        return mode == Mode.BLUR ? glob(wanted, actual) : wanted.equals(actual);
    }

    private static boolean appNameMatches(String wanted, String actual) {
        return wanted == null || wanted.isEmpty() || wanted.equals(actual);
    }

    private static boolean tagsMatch(Query query, String stored) {
        if (query.tags().isEmpty()) {
            return true;
        }
        List<String> have = splitTags(stored);
        for (String wanted : query.tags()) {
            for (String tag : have) {
                if (query.mode() == Mode.BLUR ? glob(wanted, tag) : wanted.equals(tag)) {
                    return true;
                }
            }
        }
        return false;
    }

    /** Tags as Nacos stores them: the comma-separated {@code config_tags}, trimmed, blanks dropped. */
    public static List<String> splitTags(String tags) {
        if (tags == null || tags.isBlank()) {
            return List.of();
        }
        return Arrays.stream(tags.split(","))
                .map(String::trim)
                .filter(t -> !t.isEmpty())
                .toList();
    }

    /** {@code *} matches any run of characters (also none); every other character itself. */
    static boolean glob(String pattern, String text) {
        if (pattern.indexOf('*') < 0) {
            return pattern.equals(text);
        }
        String[] parts = pattern.split("\\*", -1);
        if (!text.startsWith(parts[0])) {
            return false;
        }
        int at = parts[0].length();
        for (int i = 1; i < parts.length - 1; i++) {
            int found = text.indexOf(parts[i], at);
            if (found < 0) {
                return false;
            }
            at = found + parts[i].length();
        }
        String last = parts[parts.length - 1];
        return text.length() - at >= last.length() && text.endsWith(last);
    }
}
