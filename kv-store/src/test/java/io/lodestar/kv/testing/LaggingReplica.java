package io.lodestar.kv.testing;

import io.lodestar.kv.KvEntry;
import io.lodestar.kv.KvStore;
import io.lodestar.kv.StorageMemory;
import io.lodestar.kv.cluster.ClusterAdmin;
import io.lodestar.kv.cluster.ClusterView;
import io.lodestar.kv.cluster.PeerChannel;
import io.lodestar.kv.cluster.Readiness;
import io.lodestar.kv.command.Command;
import io.lodestar.kv.command.WriteResult;
import io.lodestar.kv.feed.ChangeListener;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A real store seen as a follower that has not applied the latest commits yet: after {@link
 * #lagBehind(long)} its reads hide every entry written after that revision (as a follower's
 * replica still lacks a create another node acknowledged) until {@link #linearizable()} catches it
 * up, as Raft's ReadIndex does. Writes go to the real store unchanged.
 */
public final class LaggingReplica implements KvStore {
    private final KvStore store;
    private volatile long appliedUpTo = Long.MAX_VALUE;
    private final AtomicInteger catchUps = new AtomicInteger();

    public LaggingReplica(KvStore store) {
        this.store = store;
    }

    /** From now until the next {@link #linearizable()}, reads see nothing written after {@code revision}. */
    public void lagBehind(long revision) {
        appliedUpTo = revision;
    }

    /** How many times a caller waited for this replica to catch up. */
    public int catchUps() {
        return catchUps.get();
    }

    private boolean applied(KvEntry e) {
        return e != null && e.modRevision() <= appliedUpTo;
    }

    @Override
    public CompletableFuture<Void> linearizable() {
        catchUps.incrementAndGet();
        return store.linearizable().thenRun(() -> appliedUpTo = Long.MAX_VALUE);
    }

    @Override
    public KvEntry get(String keyspace, byte[] key) {
        KvEntry e = store.get(keyspace, key);
        return applied(e) ? e : null;
    }

    @Override
    public List<KvEntry> scan(String keyspace, byte[] prefix, int limit) {
        return store.scan(keyspace, prefix, Integer.MAX_VALUE).stream()
                .filter(this::applied)
                .limit(limit)
                .toList();
    }

    @Override
    public long count(String keyspace, byte[] prefix, long limit) {
        return Math.min(limit, scan(keyspace, prefix, Integer.MAX_VALUE).size());
    }

    /** The keys this lagging copy holds, as its counters would count them. */
    @Override
    public long countedKeys(String keyspace, byte[] prefix) {
        return scan(keyspace, prefix, Integer.MAX_VALUE).size();
    }

    @Override
    public List<KvEntry> scanFrom(String keyspace, byte[] prefix, byte[] startKey, int limit) {
        return store.scanFrom(keyspace, prefix, startKey, Integer.MAX_VALUE).stream()
                .filter(this::applied)
                .limit(limit)
                .toList();
    }

    @Override
    public long revision() {
        return Math.min(store.revision(), appliedUpTo);
    }

    @Override
    public StorageMemory storageMemory() {
        return store.storageMemory();
    }

    @Override
    public io.lodestar.kv.LogStats logStats() {
        return store.logStats();
    }

    @Override
    public CompletableFuture<WriteResult> write(Command command) {
        return store.write(command);
    }

    @Override
    public AutoCloseable subscribe(ChangeListener listener, int capacity) {
        return store.subscribe(listener, capacity);
    }

    @Override
    public Readiness readiness() {
        return store.readiness();
    }

    @Override
    public java.util.concurrent.CompletableFuture<io.lodestar.kv.StoreCheckpoint> checkpoint() {
        return store.checkpoint();
    }

    @Override
    public String clusterId() {
        return store.clusterId();
    }

    @Override
    public io.lodestar.kv.cluster.LeaderContact leaderContact() {
        return store.leaderContact();
    }

    @Override
    public ClusterView cluster() {
        return store.cluster();
    }

    @Override
    public PeerChannel peers() {
        return store.peers();
    }

    @Override
    public ClusterAdmin admin() {
        return store.admin();
    }

    @Override
    public void close() {
        // the real store is the test's to close
    }
}
