package io.lodestar.api.cli.migrate;

import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Collectors;

/**
 * What {@code migrate} copies, read from either side into one shape. Each record normalizes its
 * fields when built (the public namespace as {@code ""}, an empty type as {@code text}, tags and IPs
 * sorted, metadata ordered, null strings as empty), so that two records of the same item are equal
 * exactly when copying would change nothing; {@link Diff} names the fields that differ.
 */
public final class Items {
    private Items() {}

    /** The public namespace's id as Lodestar writes it; Nacos 3 (and some 2.x answers) say {@code public}. */
    static String namespaceId(String id) {
        return id == null || id.isBlank() || id.equals("public") ? "" : id;
    }

    static String shown(String namespace) {
        return namespace.isEmpty() ? "public" : namespace;
    }

    private static String text(String s) {
        return s == null ? "" : s;
    }

    /** A comma list as a sorted, de-duplicated comma list without blanks. */
    static String sortedList(String s) {
        if (s == null) {
            return "";
        }
        return Arrays.stream(s.split(","))
                .map(String::trim)
                .filter(x -> !x.isEmpty())
                .collect(Collectors.toCollection(TreeSet::new))
                .stream()
                .collect(Collectors.joining(","));
    }

    private static Map<String, String> ordered(Map<String, String> m) {
        return m == null ? Map.of() : new TreeMap<>(m);
    }

    public record Namespace(String id, String name, String description) {
        public Namespace {
            id = namespaceId(id);
            name = name == null || name.isBlank() ? shown(id) : name;
            description = text(description);
        }

        @Override
        public String toString() {
            return shown(id);
        }
    }

    public record ConfigKey(String namespace, String group, String dataId) {
        public ConfigKey {
            namespace = namespaceId(namespace);
            Objects.requireNonNull(group, "group");
            Objects.requireNonNull(dataId, "dataId");
        }

        @Override
        public String toString() {
            return shown(namespace) + "/" + group + "/" + dataId;
        }
    }

    /**
     * A config as published: content and the fields Nacos keeps beside it. Its tags are a set,
     * compared regardless of order, and kept in the source's order for the copy.
     */
    public record Config(ConfigKey key, String content, String type, String desc, Set<String> tags, String appName) {
        public Config {
            content = text(content);
            type = type == null || type.isBlank() ? "text" : type;
            desc = text(desc);
            tags = tags == null ? Set.of() : java.util.Collections.unmodifiableSet(new LinkedHashSet<>(tags));
            appName = text(appName);
        }

        public Config(ConfigKey key, String content, String type, String desc, String tags, String appName) {
            this(key, content, type, desc, tagSet(tags), appName);
        }

        String joinedTags() {
            return String.join(",", tags);
        }
    }

    private static Set<String> tagSet(String tags) {
        Set<String> set = new LinkedHashSet<>();
        if (tags != null) {
            Arrays.stream(tags.split(","))
                    .map(String::trim)
                    .filter(t -> !t.isEmpty())
                    .forEach(set::add);
        }
        return set;
    }

    /** A config's gray release by client IP (Nacos's beta). */
    public record Beta(ConfigKey key, String content, String ips) {
        public Beta {
            content = text(content);
            ips = sortedList(ips);
        }
    }

    public record ServiceKey(String namespace, String group, String name) {
        public ServiceKey {
            namespace = namespaceId(namespace);
        }

        String grouped() {
            return group + "@@" + name;
        }

        @Override
        public String toString() {
            return shown(namespace) + "/" + group + "/" + name;
        }
    }

    /**
     * How a cluster's persistent instances are probed. Only an HTTP probe has a path and expected
     * codes; they are dropped for the others, which ignore them. Nacos writes the expected code as
     * a number, Lodestar as text: both become text.
     */
    public record Cluster(String type, String path, String expectedCodes, int checkPort, boolean useInstancePort) {
        /** Where both Nacos and Lodestar start: a TCP probe of the instance's own port. */
        static final Cluster DEFAULT = new Cluster("TCP", null, null, 80, true);

        public Cluster {
            type = type == null || type.isBlank() ? "TCP" : type.toUpperCase(java.util.Locale.ROOT);
            boolean http = type.equals("HTTP");
            path = http ? (path == null || path.isBlank() ? "/" : path) : "";
            expectedCodes = http ? (expectedCodes == null || expectedCodes.isBlank() ? "200" : expectedCodes) : "";
        }
    }

    /** A service's definition: protect threshold, metadata, and each cluster's probe settings. */
    public record Service(
            ServiceKey key, double protectThreshold, Map<String, String> metadata, Map<String, Cluster> clusters) {
        public Service {
            protectThreshold = Math.round(protectThreshold * 1_000_000d) / 1_000_000d;
            metadata = ordered(metadata);
            clusters = clusters == null ? Map.of() : new TreeMap<>(clusters);
        }
    }

    /**
     * An instance of a service. {@code healthy} is copied when the instance is created but never
     * compared: the target's own probes decide it from then on.
     */
    public record Instance(
            ServiceKey service,
            String cluster,
            String ip,
            int port,
            double weight,
            boolean enabled,
            boolean healthy,
            boolean ephemeral,
            Map<String, String> metadata) {
        public Instance {
            cluster = cluster == null || cluster.isBlank() ? "DEFAULT" : cluster;
            metadata = ordered(metadata);
        }

        String address() {
            return cluster + "/" + ip + ":" + port;
        }

        @Override
        public String toString() {
            return service + " " + address();
        }
    }

    public record User(String username) {
        @Override
        public String toString() {
            return username;
        }
    }

    public record RoleBinding(String role, String username) {
        @Override
        public String toString() {
            return username + " as " + role;
        }
    }

    public record Permission(String role, String resource, String action) {
        @Override
        public String toString() {
            return role + " " + action + " on " + resource;
        }
    }
}
