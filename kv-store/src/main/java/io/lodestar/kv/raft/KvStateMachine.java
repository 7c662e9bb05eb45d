package io.lodestar.kv.raft;

import com.alipay.sofa.jraft.Closure;
import com.alipay.sofa.jraft.Iterator;
import com.alipay.sofa.jraft.Status;
import com.alipay.sofa.jraft.conf.Configuration;
import com.alipay.sofa.jraft.core.StateMachineAdapter;
import com.alipay.sofa.jraft.entity.LeaderChangeContext;
import com.alipay.sofa.jraft.error.RaftError;
import com.alipay.sofa.jraft.error.RaftException;
import com.alipay.sofa.jraft.storage.snapshot.SnapshotReader;
import com.alipay.sofa.jraft.storage.snapshot.SnapshotWriter;
import io.lodestar.kv.StoreUnavailableException;
import io.lodestar.kv.codec.HessianCodec;
import io.lodestar.kv.command.Command;
import io.lodestar.kv.command.WriteResult;
import io.lodestar.kv.count.CountRules;
import io.lodestar.kv.feed.ChangeEvent;
import io.lodestar.kv.feed.ChangeFeed;
import io.lodestar.kv.rocks.CommandBatch;
import io.lodestar.kv.rocks.RocksEngine;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The replicated state machine: the Raft glue between JRaft's log and the store. It hands each
 * apply batch's commands to a {@link CommandBatch}, which executes them against RocksDB, and
 * answers the proposers and the change feed; it saves and installs snapshots and reports roles.
 *
 * <p>Threading: JRaft calls every {@code on*} method from its single state machine thread.
 * {@link #read} may be called from any thread; it holds a read lock so a snapshot install, which
 * swaps the engine under the write lock, never closes an engine under a reader.
 *
 * <p>Durability and idempotence: all entries of one {@code onApply} batch are written in one
 * RocksDB WriteBatch together with the last applied index and the new revision; an entry at or
 * below the stored applied index is skipped, so replaying the Raft log after a crash applies
 * every entry exactly once.
 */
public final class KvStateMachine extends StateMachineAdapter {
    private static final Logger LOG = LoggerFactory.getLogger(KvStateMachine.class);
    static final HessianCodec CODEC = new HessianCodec(Command.CLASSES);

    private final KvDirectory directory;
    private final Collection<String> keyspaces;
    private final CountRules counting;
    private final long blockCacheBytes;
    private final ChangeFeed feed;
    private final Executor completions;
    private final SnapshotFiles snapshots;
    private final AppliedIndexWaiters appliedWaiters = new AppliedIndexWaiters();
    private final ReentrantReadWriteLock lock = new ReentrantReadWriteLock();
    private volatile RocksEngine engine;
    private volatile RoleListener roles;
    private volatile Configuration configuration;
    private volatile String loadError;
    private boolean closed;
    // the snapshot record: written on the apply thread (and by the snapshot's completion), read by any
    private volatile long lastSnapshotIndex;
    private volatile long lastSnapshotAtMillis;
    private volatile long lastSnapshotMillis;
    private final AtomicLong snapshotsTaken = new AtomicLong();
    private final AtomicLong bytesSinceSnapshot = new AtomicLong();

    KvStateMachine(
            KvDirectory directory,
            Collection<String> keyspaces,
            CountRules counting,
            long blockCacheBytes,
            ChangeFeed feed,
            Executor completions,
            Executor background) {
        this.directory = directory;
        this.keyspaces = List.copyOf(keyspaces);
        this.counting = counting;
        this.blockCacheBytes = blockCacheBytes;
        this.feed = feed;
        this.completions = completions;
        this.snapshots = new SnapshotFiles(background);
        directory.deleteStale();
        this.engine = RocksEngine.open(directory.active(), keyspaces, counting, blockCacheBytes);
        appliedWaiters.advance(engine.appliedIndex());
    }

    void setRoleListener(RoleListener roles) {
        this.roles = roles;
    }

    /** Runs {@code reader} against the current engine; safe from any thread. */
    public <T> T read(Function<RocksEngine, T> reader) {
        lock.readLock().lock();
        try {
            if (closed) {
                throw new StoreUnavailableException("the store is shut down");
            }
            return reader.apply(engine);
        } finally {
            lock.readLock().unlock();
        }
    }

    long appliedIndex() {
        return engine.appliedIndex();
    }

    /**
     * Completes once this node's store includes log index {@code index}, on the completion thread
     * (after the change feed has heard of the entries up to it), never on JRaft's apply thread.
     */
    java.util.concurrent.CompletableFuture<Void> awaitApplied(long index) {
        return appliedWaiters.await(index);
    }

    /** The last committed configuration seen by this node, or null before the first. */
    Configuration configuration() {
        return configuration;
    }

    /** Why the last snapshot install failed, for the start-up error; null if none did. */
    String loadError() {
        return loadError;
    }

    @Override
    public void onApply(Iterator it) {
        RocksEngine e = engine;
        long applied = e.appliedIndex();
        long last = applied;
        List<ProposeClosure> done = new ArrayList<>();
        try (CommandBatch batch = new CommandBatch(e)) {
            long bytes = 0;
            while (it.hasNext()) {
                long index = it.getIndex();
                Closure closure = it.done();
                ByteBuffer data = it.getData();
                bytes += data == null ? 0 : data.remaining();
                if (index <= applied) {
                    // replayed after a crash: its effects are already in RocksDB
                    it.next();
                    continue;
                }
                try {
                    // on the leader, the command it was given, not a decode of the entry
                    Command command = closure instanceof ProposeClosure pc ? pc.command() : decode(it.getData());
                    CommandBatch.Outcome outcome = batch.apply(command);
                    if (closure instanceof ProposeClosure pc) {
                        pc.setResult(new WriteResult(outcome.succeeded(), batch.revision(), index, outcome.overCap()));
                        done.add(pc);
                    }
                } catch (RuntimeException | Error ex) {
                    // A committed entry this node cannot apply: applying the rest would diverge
                    // from the replicas that could. Keep what came before, halt on this one
                    // (the batch dropped whatever part of it was already staged).
                    LOG.error("cannot apply log entry {}: halting this node", index, ex);
                    commit(batch, last, applied, done);
                    it.setErrorAndRollback(
                            1,
                            new Status(
                                    RaftError.ESTATEMACHINE, "cannot apply log entry %d: %s", index, ex.getMessage()));
                    return;
                }
                last = index;
                it.next();
            }
            bytesSinceSnapshot.addAndGet(bytes);
            commit(batch, last, applied, done);
        }
    }

    private void commit(CommandBatch batch, long last, long applied, List<ProposeClosure> done) {
        List<ChangeEvent> events = batch.events();
        if (last > applied) {
            batch.commit(last);
            CrashPoints.reach(CrashPoints.AFTER_APPLY_WRITE);
        }
        if (done.isEmpty() && events.isEmpty() && last <= applied) {
            return;
        }
        // One hand-off for the feed, the proposers and those awaiting the index, not one each: every
        // wake of another thread costs the apply thread. The feed goes first, so a listener hears of
        // a change no later than its writer; the waiters complete there too, never on this thread.
        long appliedNow = last;
        completions.execute(() -> {
            feed.publish(events);
            done.forEach(c -> c.run(Status.OK()));
            appliedWaiters.advance(appliedNow);
        });
    }

    private static Command decode(ByteBuffer data) {
        byte[] bytes = new byte[data.remaining()];
        data.duplicate().get(bytes);
        return CODEC.decode(bytes, Command.class);
    }

    /**
     * Takes the checkpoint on this (the apply) thread, so writes wait for it alone; the files are
     * checksummed in the background. The counts since the last snapshot restart here, at the
     * checkpoint's index.
     */
    @Override
    public void onSnapshotSave(SnapshotWriter writer, Closure done) {
        long startedNanos = System.nanoTime();
        long index = engine.appliedIndex();
        long bytesBefore = bytesSinceSnapshot.getAndSet(0);
        snapshots.save(engine, writer, status -> {
            if (status.isOk()) {
                lastSnapshotIndex = index;
                lastSnapshotAtMillis = System.currentTimeMillis();
                lastSnapshotMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startedNanos);
                snapshotsTaken.incrementAndGet();
            } else {
                bytesSinceSnapshot.addAndGet(bytesBefore); // still in the log: the next try counts them
            }
            done.run(status);
        });
    }

    /** The log index of the last snapshot saved or loaded; 0 for none. */
    long lastSnapshotIndex() {
        return lastSnapshotIndex;
    }

    long bytesSinceSnapshot() {
        return bytesSinceSnapshot.get();
    }

    long lastSnapshotAtMillis() {
        return lastSnapshotAtMillis;
    }

    long lastSnapshotMillis() {
        return lastSnapshotMillis;
    }

    long snapshotsTaken() {
        return snapshotsTaken.get();
    }

    @Override
    public boolean onSnapshotLoad(SnapshotReader reader) {
        try {
            var meta = reader.load();
            if (meta != null) {
                lastSnapshotIndex = meta.getLastIncludedIndex();
                bytesSinceSnapshot.set(0);
            }
            RocksEngine fresh =
                    snapshots.load(engine.appliedIndex(), reader, directory, keyspaces, counting, blockCacheBytes);
            if (fresh == null) {
                return true;
            }
            RocksEngine old;
            long oldRevision;
            lock.writeLock().lock();
            try {
                old = engine;
                oldRevision = old.revision();
                engine = fresh;
                directory.activate(fresh.dir());
            } finally {
                lock.writeLock().unlock();
            }
            old.close();
            directory.deleteStale();
            LOG.info("installed snapshot: applied index {}, revision {}", fresh.appliedIndex(), fresh.revision());
            long resyncFrom = Math.min(oldRevision, fresh.revision()) + 1;
            long appliedNow = fresh.appliedIndex();
            // behind the events already handed off, so none of those arrives after the resync
            completions.execute(() -> {
                feed.resyncAll(resyncFrom);
                appliedWaiters.advance(appliedNow);
            });
            return true;
        } catch (RuntimeException e) {
            loadError = e.getMessage();
            LOG.error("cannot load snapshot from {}: {}", reader.getPath(), e.getMessage(), e);
            return false;
        }
    }

    @Override
    public void onConfigurationCommitted(Configuration conf) {
        this.configuration = conf.copy();
    }

    @Override
    public void onLeaderStart(long term) {
        notifyRole("LEADER", term, null);
    }

    @Override
    public void onLeaderStop(Status status) {
        notifyRole("FOLLOWER", -1, null);
    }

    @Override
    public void onStartFollowing(LeaderChangeContext ctx) {
        notifyRole("FOLLOWER", ctx.getTerm(), ctx.getLeaderId().getEndpoint().toString());
    }

    @Override
    public void onStopFollowing(LeaderChangeContext ctx) {
        notifyRole("FOLLOWER", ctx.getTerm(), null);
    }

    @Override
    public void onError(RaftException e) {
        LOG.error("raft node halted: {}", e.getStatus(), e);
        RoleListener r = roles;
        if (r != null) {
            r.onHalted(String.valueOf(e.getStatus()));
        }
    }

    @Override
    public void onShutdown() {
        lock.writeLock().lock();
        try {
            closed = true;
            engine.close();
        } finally {
            lock.writeLock().unlock();
        }
    }

    private void notifyRole(String role, long term, String leader) {
        RoleListener r = roles;
        if (r != null) {
            r.onRoleChange(role, term, leader);
        }
    }
}
