package io.lodestar.config.service;

import io.lodestar.config.BetaConfig;
import io.lodestar.config.BetaIps;
import io.lodestar.config.Config;
import io.lodestar.config.ConfigConflictException;
import io.lodestar.config.ConfigKey;
import io.lodestar.config.ConfigKeyspaces;
import io.lodestar.config.ContentMd5;
import io.lodestar.config.PublishRequest;
import io.lodestar.config.ServedConfig;
import io.lodestar.config.changelog.ConfigChangeLog;
import io.lodestar.config.history.ConfigHistory;
import io.lodestar.config.history.HistoryEntry;
import io.lodestar.error.InvalidRequestException;
import io.lodestar.kv.KvEntry;
import io.lodestar.kv.KvStore;
import io.lodestar.kv.command.Cap;
import io.lodestar.kv.command.Command;
import io.lodestar.kv.command.Compare;
import io.lodestar.kv.command.Op;
import io.lodestar.kv.rmw.ReadModifyWrite;
import io.lodestar.kv.rmw.Step;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * Publishes, reads and deletes configs in the store's {@value #KEYSPACE} keyspace, recording every
 * change in the config's history in the same atomic command.
 *
 * <p>A change is proposed against the revision it was computed from (so the history entry holds
 * exactly the content it replaced); if another change to the same config committed first, it is
 * computed again, a few times. Writes complete as {@link KvStore#write} does; reads are this
 * node's replica.
 *
 * <p>Gray releases (betas) live in {@link ConfigKeyspaces#BETA}, one per config, apart from the
 * stable config: {@link #publishBeta}, {@link #getBeta}, {@link #stopBeta}, {@link #promoteBeta}.
 */
public final class ConfigService {
    public static final String KEYSPACE = ConfigKeyspaces.CONFIG;
    public static final int DEFAULT_MAX_CONTENT_BYTES = 10 << 20;
    /** The quota on the configs of one namespace, as an operator sets it and a refusal names it. */
    public static final String CONFIGS_PER_NAMESPACE_LIMIT = "quota.configs-per-namespace";

    private static final String WHAT = "the config";

    private final KvStore store;
    private final ReadModifyWrite writes;
    /** A compare-and-set publish is one attempt: losing its race means the md5 it compared changed. */
    private final ReadModifyWrite casWrites;

    private final int maxContentBytes;
    private final long maxConfigsPerNamespace;
    private final ConfigHistory history;

    /** Without a quota on the configs of a namespace (as many as a long counts). */
    public ConfigService(KvStore store, int maxContentBytes) {
        this(store, maxContentBytes, Long.MAX_VALUE);
    }

    /**
     * A publish that would create a config in a namespace already holding {@code
     * maxConfigsPerNamespace} fails with {@link io.lodestar.error.LimitExceededException} naming
     * {@value #CONFIGS_PER_NAMESPACE_LIMIT}, writing nothing; replacing a config never does. The
     * store must count {@link ConfigKeyspaces#COUNTED}.
     */
    public ConfigService(KvStore store, int maxContentBytes, long maxConfigsPerNamespace) {
        this.store = store;
        this.writes = new ReadModifyWrite(store);
        this.casWrites = new ReadModifyWrite(store, 1);
        this.maxContentBytes = maxContentBytes;
        this.maxConfigsPerNamespace = maxConfigsPerNamespace;
        this.history = new ConfigHistory(store);
    }

    public ConfigHistory history() {
        return history;
    }

    /** Creates or replaces the config; completes with the change's revision once durable. */
    public CompletableFuture<Long> publish(PublishRequest request) {
        return publish(request, null);
    }

    /**
     * Like {@link #publish(PublishRequest)}, but only if the stored content's md5 is {@code casMd5}
     * (when not null); otherwise fails with {@link ConfigConflictException} and writes nothing. The
     * compare is made against committed state (a ReadIndex round first), never a lagging copy.
     */
    public CompletableFuture<Long> publish(PublishRequest request, String casMd5) {
        String md5 = checkedMd5(request.content());
        if (casMd5 == null) {
            return writes.run(WHAT, () -> publishAttempt(request, md5, null, 1));
        }
        // the compare is an answer about committed state: a lagging replica's own copy may be older
        // than the md5 the client saw, so catch up first (ReadIndex; fails when no leader answers)
        return store.linearizable()
                .thenCompose(v -> casWrites.run(
                        () -> publishAttempt(request, md5, casMd5, 1),
                        () -> CompletableFuture.failedFuture(casConflict())));
    }

    /**
     * As {@link #publish(PublishRequest)}, for the first of {@code newConfigs} configs a caller is
     * about to create in the request's namespace one after the other (an import): if this publish
     * creates its config, it is refused unless the namespace has room for all of them, so a batch
     * that cannot fit is refused before any of it is written.
     */
    public CompletableFuture<Long> publishFirstOf(PublishRequest request, long newConfigs) {
        String md5 = checkedMd5(request.content());
        return writes.run(WHAT, () -> publishAttempt(request, md5, null, newConfigs));
    }

    private static ConfigConflictException casConflict() {
        return new ConfigConflictException("Cas publish fail, server md5 may have changed.");
    }

    /** The md5 of valid content; {@link InvalidRequestException} for blank or oversized content. */
    private String checkedMd5(String content) {
        if (content == null || content.isBlank()) {
            throw new InvalidRequestException("content", "is required and must not be blank");
        }
        byte[] bytes = content.getBytes(StandardCharsets.UTF_8);
        if (bytes.length > maxContentBytes) {
            throw new InvalidRequestException(
                    "content",
                    bytes.length + " bytes exceeds the limit of " + maxContentBytes + " bytes ("
                            + (maxContentBytes >> 20) + " MiB)");
        }
        return ContentMd5.of(bytes);
    }

    private Step<Long> publishAttempt(PublishRequest request, String md5, String casMd5, long room) {
        ConfigKey key = request.key();
        KvEntry existing = store.get(KEYSPACE, key.storeKey());
        Config current = decode(key, existing);
        if (casMd5 != null && (current == null || !current.md5().equals(casMd5))) {
            throw casConflict();
        }
        long now = System.currentTimeMillis();
        byte[] value = ConfigCodec.encode(request, md5, current == null ? now : current.createTime(), now);
        HistoryEntry change = current == null
                ? new HistoryEntry(
                        0,
                        key,
                        HistoryEntry.Operation.INSERT,
                        request.content(),
                        md5,
                        request.appName(),
                        request.srcIp(),
                        request.srcUser(),
                        now)
                : new HistoryEntry(
                        0,
                        key,
                        HistoryEntry.Operation.UPDATE,
                        current.content(),
                        current.md5(),
                        current.appName(),
                        request.srcIp(),
                        request.srcUser(),
                        now);
        Command command = Command.of(
                List.of(guard(key, existing)),
                List.of(
                        Op.put(KEYSPACE, key.storeKey(), value).withCap(quota(key, room)),
                        ConfigHistory.append(change),
                        ConfigChangeLog.appendPut(key, md5)));
        return Step.proposeForRevision(command);
    }

    /** This node's copy of the config, or null. */
    public Config get(ConfigKey key) {
        return decode(key, store.get(KEYSPACE, key.storeKey()));
    }

    /** Deletes the config if present (recording it in the history); completes once durable. */
    public CompletableFuture<Void> delete(ConfigKey key, String srcIp, String srcUser) {
        return writes.run(WHAT, () -> deleteAttempt(key, srcIp, srcUser));
    }

    private Step<Void> deleteAttempt(ConfigKey key, String srcIp, String srcUser) {
        KvEntry existing = store.get(KEYSPACE, key.storeKey());
        Config current = decode(key, existing);
        if (current == null) {
            return Step.answer(null);
        }
        HistoryEntry change = new HistoryEntry(
                0,
                key,
                HistoryEntry.Operation.DELETE,
                current.content(),
                current.md5(),
                current.appName(),
                srcIp,
                srcUser,
                System.currentTimeMillis());
        Command command = Command.of(
                List.of(guard(key, existing)),
                List.of(
                        Op.delete(KEYSPACE, key.storeKey()),
                        ConfigHistory.append(change),
                        ConfigChangeLog.appendDelete(key)));
        return Step.propose(command, null);
    }

    /** Publishes the content a history entry holds, as a new change. */
    public CompletableFuture<Long> rollback(ConfigKey key, long historyId, String srcIp, String srcUser) {
        HistoryEntry entry = history.get(key, historyId);
        if (entry == null) {
            throw new InvalidRequestException("nid", "no history entry " + historyId + " for " + key.dataId());
        }
        Config current = get(key);
        return publish(new PublishRequest(
                key,
                entry.content(),
                current == null ? null : current.type(),
                entry.appName(),
                current == null ? null : current.desc(),
                current == null ? null : current.tags(),
                srcIp,
                srcUser));
    }

    /**
     * Publishes a gray release (beta) of {@code request}'s content for the clients at {@code betaIps}
     * (see {@link BetaIps#parse}), replacing any earlier beta of that config; the stable config is
     * untouched. Not recorded in the history nor in the push channel's change log (the stable content
     * did not change). Completes with the change's revision once durable.
     */
    public CompletableFuture<Long> publishBeta(PublishRequest request, String betaIps) {
        List<String> ips = BetaIps.parse(betaIps);
        String md5 = checkedMd5(request.content());
        return writes.run(WHAT, () -> publishBetaAttempt(request, md5, ips));
    }

    private Step<Long> publishBetaAttempt(PublishRequest request, String md5, List<String> ips) {
        ConfigKey key = request.key();
        KvEntry existing = store.get(ConfigKeyspaces.BETA, key.storeKey());
        BetaConfig current = decodeBeta(key, existing);
        long now = System.currentTimeMillis();
        byte[] value = BetaCodec.encode(
                request.content(),
                md5,
                ips,
                request.srcIp(),
                request.srcUser(),
                current == null ? now : current.createTime(),
                now);
        Command command = Command.of(
                List.of(betaGuard(key, existing)), List.of(Op.put(ConfigKeyspaces.BETA, key.storeKey(), value)));
        return Step.proposeForRevision(command);
    }

    /**
     * What the client at {@code clientIp} is served for {@code key}, or null when there is nothing
     * to serve it: the one reading of "a gray release first, then the stable config" for every
     * protocol. The beta is read first: a promote (stable replaced and beta removed in one write)
     * applied between the two reads then shows the new content either way, never the old stable
     * to a client in the gray release.
     */
    public ServedConfig serve(ConfigKey key, String clientIp) {
        BetaConfig beta = getBeta(key);
        Config config = get(key);
        String type = config == null || config.type() == null ? "text" : config.type();
        if (beta != null && beta.servesTo(clientIp)) {
            return new ServedConfig(beta.content(), beta.md5(), type, true, 0);
        }
        return config == null
                ? null
                : new ServedConfig(config.content(), config.md5(), type, false, config.modifyTime());
    }

    /**
     * The one publish rule for every protocol: a gray release for the clients at {@code betaIps}
     * when given ({@link #publishBeta}), else the stable config, compared against {@code casMd5}
     * when given ({@link #publish(PublishRequest, String)}). A gray release cannot be
     * compared-and-published: {@link InvalidRequestException} on {@code casMd5}, nothing written.
     */
    public CompletableFuture<Long> publish(PublishRequest request, String casMd5, String betaIps) {
        if (betaIps == null) {
            return publish(request, casMd5);
        }
        if (casMd5 != null) {
            throw new InvalidRequestException("casMd5", "compare-and-publish is not supported for a beta");
        }
        return publishBeta(request, betaIps);
    }

    /** This node's copy of the config's beta, or null. */
    public BetaConfig getBeta(ConfigKey key) {
        return decodeBeta(key, store.get(ConfigKeyspaces.BETA, key.storeKey()));
    }

    /** Removes the config's beta if present (the stable config is untouched); completes once durable. */
    public CompletableFuture<Void> stopBeta(ConfigKey key) {
        return writes.run(WHAT, () -> stopBetaAttempt(key));
    }

    private Step<Void> stopBetaAttempt(ConfigKey key) {
        KvEntry existing = store.get(ConfigKeyspaces.BETA, key.storeKey());
        if (existing == null) {
            return Step.answer(null);
        }
        Command command =
                Command.of(List.of(betaGuard(key, existing)), List.of(Op.delete(ConfigKeyspaces.BETA, key.storeKey())));
        return Step.propose(command, null);
    }

    /**
     * Publishes the beta's content as the stable config and removes the beta, in one command guarded
     * on both keys' revisions: the history and the change log record it as an ordinary publish, and no
     * reader ever sees the beta gone but the stable content not yet replaced (or both). The stable
     * config's type, appName, desc and tags are kept. {@link InvalidRequestException} on
     * {@code dataId} if the config has no beta.
     */
    public CompletableFuture<Long> promoteBeta(ConfigKey key, String srcIp, String srcUser) {
        return writes.run(WHAT, () -> promoteBetaAttempt(key, srcIp, srcUser));
    }

    private Step<Long> promoteBetaAttempt(ConfigKey key, String srcIp, String srcUser) {
        KvEntry betaEntry = store.get(ConfigKeyspaces.BETA, key.storeKey());
        BetaConfig beta = decodeBeta(key, betaEntry);
        if (beta == null) {
            throw new InvalidRequestException(
                    "dataId", "no beta of " + key.dataId() + " in group " + key.group() + " to promote");
        }
        KvEntry existing = store.get(KEYSPACE, key.storeKey());
        Config current = decode(key, existing);
        PublishRequest request = new PublishRequest(
                key,
                beta.content(),
                current == null ? null : current.type(),
                current == null ? null : current.appName(),
                current == null ? null : current.desc(),
                current == null ? null : current.tags(),
                srcIp,
                srcUser);
        long now = System.currentTimeMillis();
        byte[] value = ConfigCodec.encode(request, beta.md5(), current == null ? now : current.createTime(), now);
        HistoryEntry change = current == null
                ? new HistoryEntry(
                        0,
                        key,
                        HistoryEntry.Operation.INSERT,
                        beta.content(),
                        beta.md5(),
                        request.appName(),
                        srcIp,
                        srcUser,
                        now)
                : new HistoryEntry(
                        0,
                        key,
                        HistoryEntry.Operation.UPDATE,
                        current.content(),
                        current.md5(),
                        current.appName(),
                        srcIp,
                        srcUser,
                        now);
        Command command = Command.of(
                List.of(guard(key, existing), betaGuard(key, betaEntry)),
                List.of(
                        Op.put(KEYSPACE, key.storeKey(), value).withCap(quota(key, 1)),
                        Op.delete(ConfigKeyspaces.BETA, key.storeKey()),
                        ConfigHistory.append(change),
                        ConfigChangeLog.appendPut(key, beta.md5())));
        return Step.proposeForRevision(command);
    }

    /** The configs quota of the key's namespace, for a put that needs room for {@code room} new configs. */
    private Cap quota(ConfigKey key, long room) {
        String namespace = key.tenant().isEmpty() ? "public" : key.tenant();
        String what = room == 1
                ? "namespace '" + namespace + "' has no room for another config"
                : "namespace '" + namespace + "' has no room for " + room + " more configs";
        return Cap.of(CONFIGS_PER_NAMESPACE_LIMIT, maxConfigsPerNamespace, what).withRoom(room);
    }

    private static Compare betaGuard(ConfigKey key, KvEntry existing) {
        return Compare.modRevision(ConfigKeyspaces.BETA, key.storeKey(), existing == null ? 0 : existing.modRevision());
    }

    private static BetaConfig decodeBeta(ConfigKey key, KvEntry e) {
        return e == null ? null : BetaCodec.decode(key, e.value(), e.createRevision(), e.modRevision());
    }

    private static Compare guard(ConfigKey key, KvEntry existing) {
        return Compare.modRevision(KEYSPACE, key.storeKey(), existing == null ? 0 : existing.modRevision());
    }

    private static Config decode(ConfigKey key, KvEntry e) {
        return e == null ? null : ConfigCodec.decode(key, e.value(), e.createRevision(), e.modRevision());
    }
}
