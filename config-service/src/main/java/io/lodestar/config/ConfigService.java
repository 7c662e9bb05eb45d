package io.lodestar.config;

import io.lodestar.kv.InvalidRequestException;
import io.lodestar.kv.KvEntry;
import io.lodestar.kv.KvStore;
import io.lodestar.kv.command.Command;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.concurrent.CompletableFuture;

/**
 * Publishes, reads and deletes configs in the store's {@value #KEYSPACE} keyspace. Writes complete
 * as {@link KvStore#write} does; reads are this node's replica.
 */
public final class ConfigService {
    public static final String KEYSPACE = ConfigKeyspaces.CONFIG;
    public static final int DEFAULT_MAX_CONTENT_BYTES = 10 << 20;

    private final KvStore store;
    private final int maxContentBytes;

    public ConfigService(KvStore store, int maxContentBytes) {
        this.store = store;
        this.maxContentBytes = maxContentBytes;
    }

    /** Creates or replaces the config; completes once it is durable on a majority. */
    public CompletableFuture<Long> publish(PublishRequest request) {
        String content = request.content();
        if (content == null || content.isBlank()) {
            throw new InvalidRequestException("content", "is required and must not be blank");
        }
        byte[] bytes = content.getBytes(StandardCharsets.UTF_8);
        if (bytes.length > maxContentBytes) {
            throw new InvalidRequestException("content", bytes.length + " bytes exceeds the limit of "
                    + maxContentBytes + " bytes");
        }
        long now = System.currentTimeMillis();
        KvEntry existing = store.get(KEYSPACE, request.key().storeKey());
        long createTime = existing == null ? now
                : ConfigCodec.decode(request.key(), existing.value(), existing.createRevision(), existing.modRevision()).createTime();
        byte[] value = ConfigCodec.encode(request, md5Hex(bytes), createTime, now);
        return store.write(Command.put(KEYSPACE, request.key().storeKey(), value)).thenApply(r -> r.revision());
    }

    /** This node's copy of the config, or null. */
    public Config get(ConfigKey key) {
        KvEntry e = store.get(KEYSPACE, key.storeKey());
        return e == null ? null : ConfigCodec.decode(key, e.value(), e.createRevision(), e.modRevision());
    }

    /** Deletes the config if present; completes once durable. */
    public CompletableFuture<Void> delete(ConfigKey key) {
        return store.write(Command.delete(KEYSPACE, key.storeKey())).thenApply(r -> null);
    }

    public static String md5Hex(byte[] bytes) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("MD5").digest(bytes));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
