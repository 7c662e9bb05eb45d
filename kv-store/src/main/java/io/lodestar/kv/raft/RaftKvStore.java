package io.lodestar.kv.raft;

import com.alipay.sofa.jraft.RaftGroupService;
import com.alipay.sofa.jraft.core.NodeImpl;
import com.alipay.sofa.jraft.entity.PeerId;
import io.lodestar.error.InvalidRequestException;
import io.lodestar.kv.KvEntry;
import io.lodestar.kv.KvStore;
import io.lodestar.kv.KvStoreConfig;
import io.lodestar.kv.LogStats;
import io.lodestar.kv.NoLeaderException;
import io.lodestar.kv.NotLeaderException;
import io.lodestar.kv.StorageMemory;
import io.lodestar.kv.StoreCheckpoint;
import io.lodestar.kv.StoreUnavailableException;
import io.lodestar.kv.WriteOutcomeUnknownException;
import io.lodestar.kv.cluster.ClusterAdmin;
import io.lodestar.kv.cluster.ClusterView;
import io.lodestar.kv.cluster.LeaderContact;
import io.lodestar.kv.cluster.PeerChannel;
import io.lodestar.kv.cluster.PeerMessageHandler;
import io.lodestar.kv.cluster.Readiness;
import io.lodestar.kv.codec.BoltSerialization;
import io.lodestar.kv.command.Command;
import io.lodestar.kv.command.WriteResult;
import io.lodestar.kv.feed.ChangeFeed;
import io.lodestar.kv.feed.ChangeListener;
import io.lodestar.kv.forward.ForwardClient;
import io.lodestar.kv.forward.ForwardServer;
import io.lodestar.kv.forward.LeaderProposer;
import io.lodestar.kv.raftport.PeerCredentials;
import io.lodestar.kv.rocks.RocksEngine;
import io.lodestar.kv.rocks.RocksNativeLibrary;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A {@link KvStore} node: the facade over this member's parts. {@link RaftNodeBootstrap} starts
 * the JRaft node over {@link KvStateMachine}; {@link WriteRouter} sends writes to the leader,
 * {@link LeaderProposals} proposes them there; {@link SnapshotTrigger}, {@link AddressPublisher}
 * and the readiness and member directory run on the store's periodic tick; {@link
 * LeadershipHandover} runs on close. Futures complete on {@link CallerCompletions}' thread.
 */
public final class RaftKvStore implements KvStore, LeaderProposer {
    private static final Logger LOG = LoggerFactory.getLogger(RaftKvStore.class);
    static final String GROUP = "lodestar";
    /** Period of {@link #tick}, and so how late past its timeout a request may fail. */
    private static final long TICK_MS = 200;

    private final KvStoreConfig config;
    private final PeerId self;
    private final CommandValidator validator;
    private final ChangeFeed feed = new ChangeFeed();
    private final ScheduledThreadPoolExecutor scheduler;
    private final CallerCompletions completions = new CallerCompletions();
    private final ExecutorService background;
    private final KvStateMachine fsm;
    private final DiskGuard disk;
    private final PeerCredentials credentials;
    private final ForwardClient forwarder;
    private final Map<String, PeerMessageHandler> peerHandlers = new ConcurrentHashMap<>();
    private final Deadlines deadlines;
    private final Deadlines readDeadlines;
    private final NodeRole role = new NodeRole();
    private final LinearizableReads reads;
    private final LeaderProposals proposals;
    private final WriteRouter router;
    private final SnapshotTrigger snapshots;
    private final AddressPublisher address;
    private final ClusterIdentity identity;
    private final StoreCheckpoints checkpoints;
    private RaftGroupService service;
    private volatile NodeImpl node;
    private volatile ReadinessTracker readiness;
    private volatile LeaderContactTracker leaderContact;
    private volatile MemberDirectory members;
    private volatile RaftClusterAdmin admin;
    private volatile boolean closed;
    private final CapRefusals capRefusals = new CapRefusals();

    private RaftKvStore(KvStoreConfig config) {
        this.config = config;
        this.self = PeerId.parsePeer(config.self());
        if (self == null) {
            throw new InvalidRequestException("host", "cannot form a peer address from " + config.self());
        }
        for (String keyspace : config.keyspaces()) {
            if (keyspace.isEmpty() || keyspace.startsWith("_")) {
                throw new InvalidRequestException(
                        "keyspaces", "'" + keyspace + "': names starting with _ are reserved");
            }
        }
        Set<String> keyspaces = new HashSet<>(config.keyspaces());
        keyspaces.add(MemberDirectory.KEYSPACE);
        // callers see only their own keyspaces; the store's internal ones are written by the store
        this.validator = new CommandValidator(config.keyspaces(), config.counting(), config.maxValueBytes());
        this.scheduler = new ScheduledThreadPoolExecutor(1, daemon("kv-timer"));
        this.scheduler.setRemoveOnCancelPolicy(true);
        this.deadlines = new Deadlines(
                config.requestTimeoutMs(),
                () -> new WriteOutcomeUnknownException("not committed within " + config.requestTimeoutMs() + " ms"));
        this.readDeadlines = new Deadlines(
                config.requestTimeoutMs(),
                () -> new NoLeaderException(
                        "linearizable read not confirmed by a leader within " + config.requestTimeoutMs() + " ms"));
        this.background = Executors.newSingleThreadExecutor(daemon("kv-background"));
        this.fsm = new KvStateMachine(
                new KvDirectory(config.dataDir().resolve("kv")),
                keyspaces,
                config.counting(),
                config.blockCacheBytes(),
                feed,
                completions.executor(),
                background);
        this.checkpoints = new StoreCheckpoints(config.dataDir(), fsm, background);
        this.credentials = new PeerCredentials(
                config.clusterSecret(), config.self(), config.raftPortSettings().tls());
        this.forwarder = new ForwardClient(credentials);
        this.disk = new DiskGuard(config.dataDir(), config.diskReserveBytes());
        this.proposals =
                new LeaderProposals(config.self(), disk, deadlines, () -> node, role::leaderTerm, () -> closed);
        this.router = new WriteRouter(
                self, config.requestTimeoutMs(), () -> node, proposals, forwarder, fsm, () -> closed, scheduler);
        this.reads = new LinearizableReads(() -> node, readDeadlines, () -> closed);
        this.snapshots = new SnapshotTrigger(fsm, () -> node, config.snapshotEntries(), config.snapshotBytes());
        this.address = new AddressPublisher(
                config.self(), config.httpAddress(), () -> readiness.current().ready(), () -> members, router::write);
        // a store that serves no one (httpAddress null: tests of the store alone) writes nothing of its own
        this.identity = new ClusterIdentity(
                fsm,
                () -> config.httpAddress() != null
                        && node.isLeader()
                        && readiness.current().ready(),
                router::write);
    }

    /**
     * Opens the store and starts the Raft node. Throws {@link StoreStartException} naming the cause
     * (a corrupted store or snapshot, a port in use, a bad peer list) instead of starting empty.
     */
    public static RaftKvStore start(KvStoreConfig config) {
        RaftKvStore store;
        try {
            // before any bolt client exists: every answer this node decodes passes the allowlist
            BoltSerialization.restrict();
            RocksNativeLibrary.load(config.dataDir().resolve("lib"));
            store = new RaftKvStore(config);
        } catch (RuntimeException e) {
            throw new StoreStartException(e.getMessage(), e);
        }
        try {
            store.startNode();
            return store;
        } catch (RuntimeException e) {
            String reason = store.fsm.loadError() != null ? store.fsm.loadError() : e.getMessage();
            store.closeQuietly();
            throw new StoreStartException(reason, e);
        }
    }

    private void startNode() {
        fsm.setRoleListener(role);
        RaftNodeBootstrap.Started started = RaftNodeBootstrap.start(config, self, credentials, fsm, rpcServer -> {
            RaftRequestProcessors.register(rpcServer, GROUP, disk::refusal);
            ForwardServer.register(rpcServer, config.clusterSecret(), config.self(), this, peerHandlers);
        });
        service = started.service();
        node = (NodeImpl) started.node();
        if (config.forceNewCluster()) {
            ForcedNewCluster.apply(node, self);
        }
        readiness = new ReadinessTracker(node);
        leaderContact = new LeaderContactTracker(node);
        role.reportTo(readiness);
        members = new MemberDirectory(node, config.self(), started.initial(), forwarder, fsm);
        scheduler.scheduleWithFixedDelay(this::tick, 0, TICK_MS, TimeUnit.MILLISECONDS);
        LOG.info(
                "raft node {} started: peers {}, data in {}",
                config.self(),
                started.peers(),
                config.dataDir().toAbsolutePath());
    }

    private int ticks;

    /**
     * The store's one periodic task: fails requests past their deadline, probes readiness, and every
     * fifth tick refreshes the member view. One task, not one per job: on an idle node every timer
     * wake costs CPU, and a task armed by a request would put a thread wake on that request's path.
     */
    private void tick() {
        try {
            deadlines.expire();
            readDeadlines.expire();
            readiness.probe();
            leaderContact.tick();
            snapshots.snapshotIfTheLogGrew();
            if (ticks++ % 5 == 0) {
                members.refresh();
                address.publishIfChanged();
                identity.createIfMissing();
            }
        } catch (RuntimeException e) {
            LOG.warn("periodic store task failed", e);
        }
    }

    @Override
    public CompletableFuture<WriteResult> write(Command command) {
        try {
            validator.check(command);
        } catch (InvalidRequestException e) {
            return CompletableFuture.failedFuture(e);
        }
        return completions.relay(router.write(command).thenCompose(capRefusals::check));
    }

    /**
     * Tells {@code listener} the limit's name each time a write made on this node is refused by a
     * put's {@link io.lodestar.kv.command.Cap}; it runs on the thread completing the write, so it
     * must be quick.
     */
    public void onCapRefused(Consumer<String> listener) {
        capRefusals.listen(listener);
    }

    /** Proposes on this node if it leads; fails with {@link NotLeaderException} otherwise. */
    @Override
    public CompletableFuture<WriteResult> proposeAsLeader(Command command) {
        return proposals.proposeAsLeader(command);
    }

    /** This node's Raft address, host:port, as its peers name it. */
    public String self() {
        return config.self();
    }

    @Override
    public NodeStatus status() {
        if (members == null) {
            return new NodeStatus("STARTING", role.term(), null);
        }
        return new NodeStatus(members.ownState().name(), role.term(), proposals.leaderHint());
    }

    @Override
    public KvEntry get(String keyspace, byte[] key) {
        validator.checkKeyspace(keyspace);
        return fsm.read(engine -> engine.get(keyspace, key));
    }

    @Override
    public List<KvEntry> scan(String keyspace, byte[] prefix, int limit) {
        validator.checkKeyspace(keyspace);
        return fsm.read(engine -> engine.scan(keyspace, prefix, limit));
    }

    @Override
    public long count(String keyspace, byte[] prefix, long limit) {
        validator.checkKeyspace(keyspace);
        return fsm.read(engine -> engine.count(keyspace, prefix, limit));
    }

    @Override
    public long countedKeys(String keyspace, byte[] prefix) {
        validator.checkCounted(keyspace, prefix);
        return fsm.read(engine -> engine.countedKeys(keyspace, prefix));
    }

    @Override
    public List<byte[]> keys(String keyspace, byte[] prefix, byte[] startKey, int limit) {
        validator.checkKeyspace(keyspace);
        return fsm.read(engine -> engine.keys(keyspace, prefix, startKey, limit));
    }

    @Override
    public List<KvEntry> scanFrom(String keyspace, byte[] prefix, byte[] startKey, int limit) {
        validator.checkKeyspace(keyspace);
        return fsm.read(engine -> engine.scanFrom(keyspace, prefix, startKey, limit));
    }

    @Override
    public List<KvEntry> sweepFrom(String keyspace, byte[] prefix, byte[] startKey, int limit) {
        validator.checkKeyspace(keyspace);
        return fsm.read(engine -> engine.sweepFrom(keyspace, prefix, startKey, limit));
    }

    @Override
    public CompletableFuture<Void> linearizable() {
        return completions.relay(reads.readIndex());
    }

    @Override
    public long revision() {
        return fsm.read(engine -> engine.revision());
    }

    @Override
    public StorageMemory storageMemory() {
        return fsm.read(RocksEngine::storageMemory);
    }

    @Override
    public AutoCloseable subscribe(ChangeListener listener, int capacity) {
        return feed.subscribe(listener, capacity);
    }

    @Override
    public Readiness readiness() {
        String full = disk.refusal();
        if (full != null) {
            return new Readiness(false, full);
        }
        Readiness r = readiness.current();
        return r.ready() ? r : new Readiness(false, r.reason() + leaderContact.detail(members.unreachable()));
    }

    @Override
    public LeaderContact leaderContact() {
        return leaderContact.current();
    }

    @Override
    public LogStats logStats() {
        return new LogStats(
                KvDirectory.sizeOf(config.dataDir().resolve("raft").resolve("log")),
                Math.max(0, fsm.appliedIndex() - fsm.lastSnapshotIndex()),
                fsm.bytesSinceSnapshot(),
                fsm.lastSnapshotIndex(),
                fsm.lastSnapshotAtMillis(),
                fsm.lastSnapshotMillis(),
                fsm.snapshotsTaken(),
                disk.freeBytes());
    }

    @Override
    public synchronized ClusterAdmin admin() {
        if (closed) {
            throw new StoreUnavailableException("the store is shutting down");
        }
        if (admin == null) {
            admin = new RaftClusterAdmin(() -> members.members(), credentials, (int) config.requestTimeoutMs());
        }
        return admin;
    }

    @Override
    public PeerChannel peers() {
        return new MemberChannel(forwarder, peerHandlers, completions, () -> closed);
    }

    @Override
    public ClusterView cluster() {
        return members.view(role.term());
    }

    @Override
    public String clusterId() {
        return identity.current();
    }

    @Override
    public CompletableFuture<StoreCheckpoint> checkpoint() {
        return completions.relay(checkpoints.take(reads::readIndex));
    }

    /** The last applied log index of this node's store (for tests and diagnostics). */
    public long appliedIndex() {
        return fsm.appliedIndex();
    }

    /**
     * Takes a snapshot now; completes when it is saved. JRaft truncates the log up to the
     * previous snapshot, so compaction lags one snapshot behind.
     */
    public CompletableFuture<Void> snapshot() {
        return completions.relay(snapshots.snapshotNow());
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        if (node != null) {
            new LeadershipHandover(node, self, config.electionTimeoutMs()).handOver(() -> members.followers());
        }
        closed = true;
        closeQuietly();
    }

    private void closeQuietly() {
        closed = true;
        synchronized (this) {
            if (admin != null) {
                admin.close();
            }
        }
        // not shutdownNow(): writes waiting to retry must still run, to fail as "shutting down"
        // instead of never completing
        scheduler.shutdown();
        if (service != null) {
            service.shutdown();
            try {
                service.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        } else {
            fsm.onShutdown();
        }
        forwarder.close();
        feed.close();
        completions.shutdown();
        background.shutdown();
    }

    private static java.util.concurrent.ThreadFactory daemon(String name) {
        return r -> {
            Thread t = new Thread(r, name);
            t.setDaemon(true);
            return t;
        };
    }
}
