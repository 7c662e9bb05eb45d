package io.lodestar.config.transfer;

import io.lodestar.config.Config;
import io.lodestar.config.ConfigKey;
import io.lodestar.config.ConfigKeyspaces;
import io.lodestar.config.PublishRequest;
import io.lodestar.config.namespace.NamespaceService;
import io.lodestar.config.service.ConfigService;
import io.lodestar.error.InvalidRequestException;
import io.lodestar.kv.KvStore;
import java.io.IOException;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.regex.Pattern;

/**
 * Exports a namespace's configs as a Nacos archive and imports one into a namespace.
 *
 * <p>An import reads and checks the whole archive first ({@link ConfigArchive#read}); only then
 * does it publish, one config after the other, each through {@link ConfigService#publish} (so each
 * has its history entry). The first config it creates goes first, and asks the namespace's configs
 * quota for room for every config the import creates ({@link ConfigService#publishFirstOf}): an
 * import that cannot fit is refused whole, nothing written. A failure while publishing (no leader,
 * a write of unknown outcome, or configs published into the namespace meanwhile that took the room)
 * fails the import: the configs published before it stay published, and the import can be run
 * again. Exports and conflict checks read this node's replica.
 */
public final class ConfigTransfer {
    /** Nacos's ConfigType values: a v1 import takes its type from the dataId's extension when it is one. */
    private static final Set<String> TYPES = Set.of("properties", "xml", "json", "text", "html", "yaml", "toml");

    private final KvStore store;
    private final ConfigService configs;
    private final NamespaceService namespaces;
    private final ArchiveLimits limits;

    public ConfigTransfer(KvStore store, ConfigService configs, NamespaceService namespaces, ArchiveLimits limits) {
        this.store = store;
        this.configs = configs;
        this.namespaces = namespaces;
        this.limits = limits;
    }

    /**
     * Which configs of a namespace to export, as Nacos filters them: {@code group}, {@code dataId}
     * and {@code appName} match exactly, or with '*' as a wildcard in group and dataId; null or
     * blank matches all. A non-empty {@code ids} (config ids: the revision that created the config)
     * selects those configs only and ignores the other filters.
     */
    public record ExportQuery(String tenant, String group, String dataId, String appName, Set<Long> ids) {}

    /**
     * Writes the archive of the selected configs, in key order, to {@code out}, with the v2 ({@code
     * .metadata.yml}) or v1 metadata. The namespace is walked by key and each config is read and
     * written one at a time, so the heap holds one config, never the namespace. A bad
     * query fails before anything is written.
     */
    public void export(ExportQuery q, boolean v2, OutputStream out) throws IOException {
        String tenant = normalizeNamespace(q.tenant());
        Pattern group = pattern(q.group());
        Pattern dataId = pattern(q.dataId());
        boolean byId = q.ids() != null && !q.ids().isEmpty();
        ConfigArchive.Writer archive = new ConfigArchive.Writer(out, v2);
        IOException[] failed = {null};
        store.forEachKey(ConfigKeyspaces.CONFIG, ConfigKey.tenantPrefix(tenant), storeKey -> {
            ConfigKey key = ConfigKey.fromStoreKey(storeKey);
            if (!key.tenant().equals(tenant)
                    || (!byId
                            && ((group != null && !group.matcher(key.group()).matches())
                                    || (dataId != null
                                            && !dataId.matcher(key.dataId()).matches())))) {
                return true;
            }
            Config c = configs.get(key);
            if (c == null || (byId && !q.ids().contains(c.createRevision()))) {
                return true; // deleted between the walk and the read, or not one of the ids
            }
            if (!byId
                    && q.appName() != null
                    && !q.appName().isBlank()
                    && !q.appName().equals(c.appName())) {
                return true;
            }
            try {
                archive.add(new ArchivedConfig(
                        key.group(),
                        key.dataId(),
                        c.content(),
                        c.type() == null ? "text" : c.type(),
                        c.appName(),
                        c.desc()));
                return true;
            } catch (IOException e) {
                failed[0] = e; // the client went away: stop reading
                return false;
            }
        });
        if (failed[0] != null) {
            throw failed[0];
        }
        archive.finish();
    }

    /**
     * Imports an archive into {@code namespace} (which must exist; blank or "public" is the public
     * namespace). Bad input fails with {@link InvalidRequestException} before anything is written.
     */
    public CompletableFuture<ImportResult> importArchive(
            String namespace, byte[] zip, ImportPolicy policy, String srcIp, String srcUser) {
        String tenant = normalizeNamespace(namespace);
        ConfigArchive.Contents contents = ConfigArchive.read(zip, limits);
        // caught up first: the namespace, and configs that ABORT or SKIP must see, may have been
        // written through another node and not be applied here yet
        return store.linearizable().thenCompose(v -> {
            if (!tenant.isEmpty() && !namespaces.exists(tenant)) {
                return CompletableFuture.failedFuture(
                        new InvalidRequestException("namespace", "'" + tenant + "' does not exist"));
            }
            return importInto(tenant, contents, policy, srcIp, srcUser);
        });
    }

    private CompletableFuture<ImportResult> importInto(
            String tenant, ConfigArchive.Contents contents, ImportPolicy policy, String srcIp, String srcUser) {
        List<PublishRequest> toPublish = new ArrayList<>();
        int creating = 0;
        List<ImportResult.Ref> fail = new ArrayList<>();
        List<ImportResult.Ref> skip = new ArrayList<>();
        for (ArchivedConfig a : contents.configs()) {
            ConfigKey key = new ConfigKey(tenant, a.group(), a.dataId());
            boolean exists = configs.get(key) != null;
            ImportResult.Ref ref = new ImportResult.Ref(a.group(), a.dataId());
            if (exists && policy == ImportPolicy.ABORT) {
                fail.add(ref);
            } else if (exists && policy == ImportPolicy.SKIP) {
                skip.add(ref);
            } else {
                PublishRequest request = new PublishRequest(
                        key,
                        a.content(),
                        a.type() != null ? a.type() : typeOf(a.dataId()),
                        a.appName(),
                        a.desc(),
                        null,
                        srcIp,
                        srcUser);
                if (exists) {
                    toPublish.add(request);
                } else {
                    toPublish.add(creating++, request); // the configs it creates first, the first asking for room
                }
            }
        }
        if (!fail.isEmpty()) {
            // ABORT writes nothing: every config that would have been written is reported as skipped
            List<ImportResult.Ref> notWritten = toPublish.stream()
                    .map(r -> new ImportResult.Ref(r.key().group(), r.key().dataId()))
                    .toList();
            return CompletableFuture.completedFuture(
                    new ImportResult(0, notWritten.size(), fail, notWritten, contents.unrecognized()));
        }
        CompletableFuture<Void> chain = CompletableFuture.completedFuture(null);
        for (int i = 0; i < toPublish.size(); i++) {
            PublishRequest r = toPublish.get(i);
            long room = i == 0 ? creating : 1;
            chain = chain.thenCompose(
                    v -> (room > 1 ? configs.publishFirstOf(r, room) : configs.publish(r)).thenApply(rev -> null));
        }
        return chain.thenApply(
                v -> new ImportResult(toPublish.size(), skip.size(), List.of(), skip, contents.unrecognized()));
    }

    /** Nacos names the public namespace "" in storage and accepts "public" for it. */
    static String normalizeNamespace(String namespace) {
        return namespace == null || namespace.isBlank() || namespace.equals(NamespaceService.PUBLIC_ALIAS)
                ? ""
                : namespace.trim();
    }

    private static String typeOf(String dataId) {
        int dot = dataId.lastIndexOf('.');
        String ext = dot < 0 ? "" : dataId.substring(dot + 1).toLowerCase(Locale.ROOT);
        return TYPES.contains(ext) ? ext : "text";
    }

    private static Pattern pattern(String filter) {
        if (filter == null || filter.isBlank()) {
            return null;
        }
        return Pattern.compile(String.join(
                ".*",
                java.util.Arrays.stream(filter.split("\\*", -1))
                        .map(Pattern::quote)
                        .toList()));
    }
}
