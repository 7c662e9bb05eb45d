package io.lodestar.kv.rocks;

import io.lodestar.kv.KvEntry;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What a {@link CommandBatch} has staged and not yet committed: entries and key counts, read through
 * to the engine, so each command sees its predecessors'. The changes of the command being applied
 * can be undone ({@link #mark}, {@link #rollbackToMark}), for a command refused half way.
 */
final class Overlay {
    private final RocksEngine engine;
    private final Map<String, Map<ByteBuffer, Optional<KvEntry>>> entries = new HashMap<>();
    private final Map<String, Map<ByteBuffer, Long>> counts = new HashMap<>();
    /** Undoes the changes since the mark, newest last. */
    private final List<Runnable> undo = new ArrayList<>();

    Overlay(RocksEngine engine) {
        this.engine = engine;
    }

    /** {@code cache}: whether a read from the engine keeps its block cached (not for a key being deleted). */
    KvEntry get(String keyspace, byte[] key, boolean cache) {
        Map<ByteBuffer, Optional<KvEntry>> ks = entries.get(keyspace);
        Optional<KvEntry> local = ks == null ? null : ks.get(ByteBuffer.wrap(key));
        if (local != null) {
            return local.orElse(null);
        }
        return cache ? engine.get(keyspace, key) : engine.getUncached(keyspace, key);
    }

    void put(String keyspace, byte[] key, KvEntry entryOrNull) {
        Map<ByteBuffer, Optional<KvEntry>> ks = entries.computeIfAbsent(keyspace, k -> new HashMap<>());
        ByteBuffer k = ByteBuffer.wrap(key);
        Optional<KvEntry> before = ks.put(k, Optional.ofNullable(entryOrNull));
        undo.add(() -> restore(ks, k, before));
    }

    /** The keys counted under {@code scope}, staged changes included. */
    long count(String keyspace, byte[] scope) {
        Long local = counts.getOrDefault(keyspace, Map.of()).get(ByteBuffer.wrap(scope));
        return local != null ? local : engine.counter(keyspace, scope);
    }

    void setCount(String keyspace, byte[] scope, long count) {
        Map<ByteBuffer, Long> ks = counts.computeIfAbsent(keyspace, k -> new HashMap<>());
        ByteBuffer k = ByteBuffer.wrap(scope);
        Long before = ks.put(k, count);
        undo.add(() -> restore(ks, k, before));
    }

    @FunctionalInterface
    interface CountSink {
        void accept(String keyspace, byte[] scope, long count);
    }

    /** Tells {@code sink} every staged count. */
    void forEachCount(CountSink sink) {
        counts.forEach((keyspace, scopes) -> scopes.forEach((scope, n) -> {
            byte[] bytes = new byte[scope.remaining()];
            scope.duplicate().get(bytes);
            sink.accept(keyspace, bytes, n);
        }));
    }

    /** Forgets how to undo what came before: the command applied so far stays. */
    void mark() {
        undo.clear();
    }

    /** Undoes every change since the last {@link #mark}. */
    void rollbackToMark() {
        for (int i = undo.size() - 1; i >= 0; i--) {
            undo.get(i).run();
        }
        undo.clear();
    }

    private static <V> void restore(Map<ByteBuffer, V> map, ByteBuffer key, V before) {
        if (before == null) {
            map.remove(key);
        } else {
            map.put(key, before);
        }
    }
}
