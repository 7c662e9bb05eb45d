package io.lodestar.config;

import io.lodestar.config.history.ConfigHistory;
import io.lodestar.config.history.HistoryEntry;
import io.lodestar.config.push.ConfigChangeLog;
import io.lodestar.error.InvalidRequestException;
import io.lodestar.kv.KvEntry;
import io.lodestar.kv.KvStore;
import io.lodestar.kv.StoreUnavailableException;
import io.lodestar.kv.command.Command;
import io.lodestar.kv.command.Compare;
import io.lodestar.kv.command.Op;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

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
    private static final int ATTEMPTS = 32;

    private final KvStore store;
    private final int maxContentBytes;
    private final ConfigHistory history;

    public ConfigService(KvStore store, int maxContentBytes) {
        this.store = store;
        this.maxContentBytes = maxContentBytes;
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
            return publishAttempt(request, md5, null, 1);
        }
        // the compare is an answer about committed state: a lagging replica's own copy may be older
        // than the md5 the client saw, so catch up first (ReadIndex; fails when no leader answers)
        return store.linearizable().thenCompose(v -> publishAttempt(request, md5, casMd5, 1));
    }

    /** The md5 of valid content; {@link InvalidRequestException} for blank or oversized content. */
    private String checkedMd5(String content) {
        if (content == null || content.isBlank()) {
            throw new InvalidRequestException("content", "is required and must not be blank");
        }
        byte[] bytes = content.getBytes(StandardCharsets.UTF_8);
        if (bytes.length > maxContentBytes) {
            throw new InvalidRequestException("content", bytes.length + " bytes exceeds the limit of "
                    + maxContentBytes + " bytes (" + (maxContentBytes >> 20) + " MiB)");
        }
        return md5Hex(bytes);
    }

    private CompletableFuture<Long> publishAttempt(PublishRequest request, String md5, String casMd5, int attempt) {
        ConfigKey key = request.key();
        KvEntry existing = store.get(KEYSPACE, key.storeKey());
        Config current = decode(key, existing);
        if (casMd5 != null && (current == null || !current.md5().equals(casMd5))) {
            return CompletableFuture.failedFuture(new ConfigConflictException("Cas publish fail, server md5 may have changed."));
        }
        long now = System.currentTimeMillis();
        byte[] value = ConfigCodec.encode(request, md5, current == null ? now : current.createTime(), now);
        HistoryEntry change = current == null
                ? new HistoryEntry(0, key, HistoryEntry.Operation.INSERT, request.content(), md5, request.appName(),
                        request.srcIp(), request.srcUser(), now)
                : new HistoryEntry(0, key, HistoryEntry.Operation.UPDATE, current.content(), current.md5(),
                        current.appName(), request.srcIp(), request.srcUser(), now);
        Command command = Command.of(List.of(guard(key, existing)),
                List.of(Op.put(KEYSPACE, key.storeKey(), value), ConfigHistory.append(change),
                        ConfigChangeLog.appendPut(key, md5)));
        return store.write(command).thenCompose(r -> {
            if (r.succeeded()) {
                return CompletableFuture.completedFuture(r.revision());
            }
            if (casMd5 != null) {
                return CompletableFuture.failedFuture(new ConfigConflictException("Cas publish fail, server md5 may have changed."));
            }
            return retryOrGiveUp(attempt, () -> publishAttempt(request, md5, null, attempt + 1));
        });
    }

    /** This node's copy of the config, or null. */
    public Config get(ConfigKey key) {
        return decode(key, store.get(KEYSPACE, key.storeKey()));
    }

    /** Deletes the config if present (recording it in the history); completes once durable. */
    public CompletableFuture<Void> delete(ConfigKey key, String srcIp, String srcUser) {
        return deleteAttempt(key, srcIp, srcUser, 1);
    }

    private CompletableFuture<Void> deleteAttempt(ConfigKey key, String srcIp, String srcUser, int attempt) {
        KvEntry existing = store.get(KEYSPACE, key.storeKey());
        Config current = decode(key, existing);
        if (current == null) {
            return CompletableFuture.completedFuture(null);
        }
        HistoryEntry change = new HistoryEntry(0, key, HistoryEntry.Operation.DELETE, current.content(), current.md5(),
                current.appName(), srcIp, srcUser, System.currentTimeMillis());
        Command command = Command.of(List.of(guard(key, existing)),
                List.of(Op.delete(KEYSPACE, key.storeKey()), ConfigHistory.append(change),
                        ConfigChangeLog.appendDelete(key)));
        return store.write(command).thenCompose(r -> r.succeeded()
                ? CompletableFuture.completedFuture(null)
                : retryOrGiveUp(attempt, () -> deleteAttempt(key, srcIp, srcUser, attempt + 1)));
    }

    /** Publishes the content a history entry holds, as a new change. */
    public CompletableFuture<Long> rollback(ConfigKey key, long historyId, String srcIp, String srcUser) {
        HistoryEntry entry = history.get(key, historyId);
        if (entry == null) {
            throw new InvalidRequestException("nid", "no history entry " + historyId + " for " + key.dataId());
        }
        Config current = get(key);
        return publish(new PublishRequest(key, entry.content(), current == null ? null : current.type(),
                entry.appName(), current == null ? null : current.desc(), current == null ? null : current.tags(),
                srcIp, srcUser));
    }

    /**
     * Publishes a gray release (beta) of {@code request}'s content for the clients at {@code betaIps}
     * (see {@link BetaIps#parse}), replacing any earlier beta of that config; the stable config is
     * untouched. Not recorded in the history nor in the push channel's change log (the stable content
     * did not change). Completes with the change's revision once durable.
     */
    public CompletableFuture<Long> publishBeta(PublishRequest request, String betaIps) {
        List<String> ips = BetaIps.parse(betaIps);
        return publishBetaAttempt(request, checkedMd5(request.content()), ips, 1);
    }

    private CompletableFuture<Long> publishBetaAttempt(PublishRequest request, String md5, List<String> ips, int attempt) {
        ConfigKey key = request.key();
        KvEntry existing = store.get(ConfigKeyspaces.BETA, key.storeKey());
        BetaConfig current = decodeBeta(key, existing);
        long now = System.currentTimeMillis();
        byte[] value = BetaCodec.encode(request.content(), md5, ips, request.srcIp(), request.srcUser(),
                current == null ? now : current.createTime(), now);
        Command command = Command.of(List.of(betaGuard(key, existing)),
                List.of(Op.put(ConfigKeyspaces.BETA, key.storeKey(), value)));
        return store.write(command).thenCompose(r -> r.succeeded()
                ? CompletableFuture.completedFuture(r.revision())
                : retryOrGiveUp(attempt, () -> publishBetaAttempt(request, md5, ips, attempt + 1)));
    }

    /** This node's copy of the config's beta, or null. */
    public BetaConfig getBeta(ConfigKey key) {
        return decodeBeta(key, store.get(ConfigKeyspaces.BETA, key.storeKey()));
    }

    /** Removes the config's beta if present (the stable config is untouched); completes once durable. */
    public CompletableFuture<Void> stopBeta(ConfigKey key) {
        return stopBetaAttempt(key, 1);
    }

    private CompletableFuture<Void> stopBetaAttempt(ConfigKey key, int attempt) {
        KvEntry existing = store.get(ConfigKeyspaces.BETA, key.storeKey());
        if (existing == null) {
            return CompletableFuture.completedFuture(null);
        }
        Command command = Command.of(List.of(betaGuard(key, existing)),
                List.of(Op.delete(ConfigKeyspaces.BETA, key.storeKey())));
        return store.write(command).thenCompose(r -> r.succeeded()
                ? CompletableFuture.completedFuture(null)
                : retryOrGiveUp(attempt, () -> stopBetaAttempt(key, attempt + 1)));
    }

    /**
     * Publishes the beta's content as the stable config and removes the beta, in one command guarded
     * on both keys' revisions: the history and the change log record it as an ordinary publish, and no
     * reader ever sees the beta gone but the stable content not yet replaced (or both). The stable
     * config's type, appName, desc and tags are kept. {@link InvalidRequestException} on
     * {@code dataId} if the config has no beta.
     */
    public CompletableFuture<Long> promoteBeta(ConfigKey key, String srcIp, String srcUser) {
        return promoteBetaAttempt(key, srcIp, srcUser, 1);
    }

    private CompletableFuture<Long> promoteBetaAttempt(ConfigKey key, String srcIp, String srcUser, int attempt) {
        KvEntry betaEntry = store.get(ConfigKeyspaces.BETA, key.storeKey());
        BetaConfig beta = decodeBeta(key, betaEntry);
        if (beta == null) {
            return CompletableFuture.failedFuture(new InvalidRequestException("dataId",
                    "no beta of " + key.dataId() + " in group " + key.group() + " to promote"));
        }
        KvEntry existing = store.get(KEYSPACE, key.storeKey());
        Config current = decode(key, existing);
        PublishRequest request = new PublishRequest(key, beta.content(), current == null ? null : current.type(),
                current == null ? null : current.appName(), current == null ? null : current.desc(),
                current == null ? null : current.tags(), srcIp, srcUser);
        long now = System.currentTimeMillis();
        byte[] value = ConfigCodec.encode(request, beta.md5(), current == null ? now : current.createTime(), now);
        HistoryEntry change = current == null
                ? new HistoryEntry(0, key, HistoryEntry.Operation.INSERT, beta.content(), beta.md5(), request.appName(),
                        srcIp, srcUser, now)
                : new HistoryEntry(0, key, HistoryEntry.Operation.UPDATE, current.content(), current.md5(),
                        current.appName(), srcIp, srcUser, now);
        Command command = Command.of(List.of(guard(key, existing), betaGuard(key, betaEntry)),
                List.of(Op.put(KEYSPACE, key.storeKey(), value), Op.delete(ConfigKeyspaces.BETA, key.storeKey()),
                        ConfigHistory.append(change), ConfigChangeLog.appendPut(key, beta.md5())));
        return store.write(command).thenCompose(r -> r.succeeded()
                ? CompletableFuture.completedFuture(r.revision())
                : retryOrGiveUp(attempt, () -> promoteBetaAttempt(key, srcIp, srcUser, attempt + 1)));
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

    private static <T> CompletableFuture<T> retryOrGiveUp(int attempt,
                                                          java.util.function.Supplier<CompletableFuture<T>> again) {
        if (attempt >= ATTEMPTS) {
            return CompletableFuture.failedFuture(new StoreUnavailableException(
                    "the config changed under " + ATTEMPTS + " attempts in a row; try again"));
        }
        // a short random pause, so writers racing for one config do not keep colliding in step
        long pauseMicros = java.util.concurrent.ThreadLocalRandom.current().nextLong(100, 500L * Math.min(attempt, 8));
        return CompletableFuture.supplyAsync(again, CompletableFuture.delayedExecutor(pauseMicros, TimeUnit.MICROSECONDS))
                .thenCompose(f -> f);
    }

    private static Config decode(ConfigKey key, KvEntry e) {
        return e == null ? null : ConfigCodec.decode(key, e.value(), e.createRevision(), e.modRevision());
    }

    public static String md5Hex(byte[] bytes) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("MD5").digest(bytes));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
