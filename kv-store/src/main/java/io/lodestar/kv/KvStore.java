package io.lodestar.kv;

import io.lodestar.kv.cluster.ClusterAdmin;
import io.lodestar.kv.cluster.ClusterView;
import io.lodestar.kv.cluster.LeaderContact;
import io.lodestar.kv.cluster.PeerChannel;
import io.lodestar.kv.cluster.Readiness;
import io.lodestar.kv.command.Command;
import io.lodestar.kv.command.WriteResult;
import io.lodestar.kv.feed.ChangeListener;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The replicated key-value store every durable thing in Lodestar lives in.
 *
 * <p>Writes may be issued on any node: a follower forwards them to the leader. A write's future
 * completes with the {@link WriteResult} once the command is committed on a majority and applied
 * on this node (so a read on this node sees it), or fails with a {@link
 * io.lodestar.error.InvalidRequestException} (nothing proposed), a {@link
 * io.lodestar.error.LimitExceededException} naming the limit when a put's {@link
 * io.lodestar.kv.command.Cap} found its scope full (committed, nothing written), or a {@link
 * KvException}: {@link NoLeaderException} (no leader within the
 * request timeout, nothing committed), {@link StoreUnavailableException} (refused, nothing
 * committed) or {@link WriteOutcomeUnknownException} (may or may not commit; also when the leader
 * committed a forwarded write that this node could not apply in time, so a read here would miss it). A failed compare is
 * a result ({@code succeeded() == false}), not an error.
 *
 * <p>Threads: every future this store hands out ({@link #write}, {@link #linearizable}, {@link
 * PeerChannel#send}) completes on the store's own completion thread, {@code kv-complete}, never on
 * one of the Raft library's threads (state machine, log, read-index, RPC); {@link ClusterAdmin}'s
 * futures complete on its {@code cluster-admin} thread. That thread is shared by every caller and
 * also delivers the change feed, so dependent stages must not block: hand blocking work to an
 * executor of your own. A future already complete when returned (a refusal, an invalid request)
 * runs continuations on the caller's thread. On one node, a write's future completes after
 * the change feed has published the write.
 *
 * <p>Reads are served from this node's replica and may lag the leader; call {@link
 * #linearizable()} first for a read that reflects every write acknowledged before the call.
 */
public interface KvStore extends AutoCloseable {

    /**
     * Proposes {@code command}. The caller must not modify the command's byte arrays afterwards:
     * the leader applies the object it was given, not a copy.
     */
    CompletableFuture<WriteResult> write(Command command);

    /** This node's current value of the key, or null. */
    KvEntry get(String keyspace, byte[] key);

    /** This node's entries whose key starts with {@code prefix}, in key order, at most {@code limit}. */
    List<KvEntry> scan(String keyspace, byte[] prefix, int limit);

    /**
     * How many of this node's keys start with {@code prefix}, at most {@code limit}: without reading
     * any value into memory, for counts over keyspaces whose values may be large.
     */
    long count(String keyspace, byte[] prefix, long limit);

    /**
     * How many of this node's keys of a counted keyspace ({@link io.lodestar.kv.KvStoreConfig#counting})
     * start with {@code prefix}, read from the store's counters: one read for a prefix that is one
     * whole scope, one per scope under a shorter one; no key is walked. The prefix must select whole
     * scopes ({@link io.lodestar.kv.count.CountRules#selectsWholeScopes}): {@link
     * IllegalArgumentException} otherwise, as for a keyspace that is not counted.
     */
    long countedKeys(String keyspace, byte[] prefix);

    /**
     * This node's keys that start with {@code prefix} and are at or after {@code startKey}, in key
     * order, at most {@code limit}: a walk that reads no value into memory; read the values wanted
     * with {@link #get}.
     */
    default List<byte[]> keys(String keyspace, byte[] prefix, byte[] startKey, int limit) {
        return scanFrom(keyspace, prefix, startKey, limit).stream()
                .map(KvEntry::key)
                .toList();
    }

    /**
     * Tells {@code visitor} each of this node's keys that start with {@code prefix}, in key order,
     * until it answers false: {@link #keys} a batch at a time, so no value and no more than a batch
     * of keys is in memory.
     */
    default void forEachKey(String keyspace, byte[] prefix, java.util.function.Predicate<byte[]> visitor) {
        final int batchSize = 1_024;
        byte[] from = prefix;
        while (true) {
            List<byte[]> batch = keys(keyspace, prefix, from, batchSize);
            for (byte[] key : batch) {
                if (!visitor.test(key)) {
                    return;
                }
            }
            if (batch.size() < batchSize) {
                return;
            }
            byte[] last = batch.get(batch.size() - 1);
            from = java.util.Arrays.copyOf(last, last.length + 1); // the smallest key after it
        }
    }

    /**
     * This node's entries whose key starts with {@code prefix} and is at or after {@code startKey}
     * (unsigned byte order), in key order, at most {@code limit}: a range read, e.g. of a log keyed
     * by revision from a given revision on.
     */
    List<KvEntry> scanFrom(String keyspace, byte[] prefix, byte[] startKey, int limit);

    /**
     * As {@link #scanFrom}, for a background pass over much of a keyspace (retention): what it reads
     * is not kept in the block cache, where it would push out what requests read and hold native
     * memory for data nobody reads again soon.
     */
    default List<KvEntry> sweepFrom(String keyspace, byte[] prefix, byte[] startKey, int limit) {
        return scanFrom(keyspace, prefix, startKey, limit);
    }

    /**
     * Completes once this node has applied everything committed when the call was made
     * (Raft ReadIndex, confirmed by the leader's quorum): local reads after it are linearizable.
     */
    CompletableFuture<Void> linearizable();

    /**
     * Takes a checkpoint of this node's whole store into a new directory of the data directory: a
     * ReadIndex round first, so it holds every write acknowledged before the call, then a RocksDB
     * checkpoint (hard links to the store's files), during which writes go on. Completes with what
     * the checkpoint holds, read from it; the caller closes it to delete it (a start deletes any a
     * crash left). Fails as {@link #linearizable} does when no leader confirms the round.
     */
    CompletableFuture<StoreCheckpoint> checkpoint();

    /** The group's id, the same on every member; "" until its first leader has written one. */
    String clusterId();

    /** This node's store revision. */
    long revision();

    /** What this node's store holds in native memory now. */
    StorageMemory storageMemory();

    /** This node's Raft log and snapshots now. */
    LogStats logStats();

    /** Subscribes to this node's change feed; close the result to unsubscribe. */
    AutoCloseable subscribe(ChangeListener listener, int capacity);

    Readiness readiness();

    /** When this node last knew a leader, and since when it has known none. */
    LeaderContact leaderContact();

    ClusterView cluster();

    /** Authenticated messages to and from the other members, for services replicated outside Raft. */
    PeerChannel peers();

    /** Membership changes and leadership transfer. */
    ClusterAdmin admin();

    /** Hands leadership over if this node leads a group of several, then stops. */
    @Override
    void close();
}
