package io.lodestar.kv.raft;

import com.alipay.sofa.jraft.Node;
import com.alipay.sofa.jraft.RaftGroupService;
import com.alipay.sofa.jraft.Status;
import com.alipay.sofa.jraft.closure.ReadIndexClosure;
import com.alipay.sofa.jraft.conf.Configuration;
import com.alipay.sofa.jraft.core.NodeImpl;
import com.alipay.sofa.jraft.core.State;
import com.alipay.sofa.jraft.entity.PeerId;
import com.alipay.sofa.jraft.entity.Task;
import com.alipay.sofa.jraft.error.RaftError;
import com.alipay.sofa.jraft.option.NodeOptions;
import com.alipay.sofa.jraft.option.RaftOptions;
import com.alipay.sofa.jraft.rpc.RpcServer;
import com.alipay.sofa.jraft.rpc.impl.BoltRpcServer;
import com.alipay.sofa.jraft.storage.impl.RocksDBLogStorage;
import com.alipay.sofa.jraft.util.StorageOptionsFactory;
import io.lodestar.error.InvalidRequestException;
import io.lodestar.kv.KvEntry;
import io.lodestar.kv.KvException;
import io.lodestar.kv.KvStore;
import io.lodestar.kv.KvStoreConfig;
import io.lodestar.kv.LogStats;
import io.lodestar.kv.NoLeaderException;
import io.lodestar.kv.NotLeaderException;
import io.lodestar.kv.StorageMemory;
import io.lodestar.kv.StoreUnavailableException;
import io.lodestar.kv.WriteOutcomeUnknownException;
import io.lodestar.kv.cluster.ClusterAdmin;
import io.lodestar.kv.cluster.ClusterView;
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
import io.lodestar.kv.raftport.AuthenticatedRpcServer;
import io.lodestar.kv.raftport.CredentialedNodeOptions;
import io.lodestar.kv.raftport.PeerCredentials;
import io.lodestar.kv.rocks.RocksEngine;
import io.lodestar.kv.rocks.RocksNativeLibrary;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.rocksdb.ColumnFamilyOptions;
import org.rocksdb.DBOptions;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A {@link KvStore} node: a JRaft node over {@link KvStateMachine}, the node-to-node channel that
 * forwards follower writes to the leader, readiness, and the member directory.
 *
 * <p>JRaft options chosen on purpose: log fsync on ({@code sync}), term and vote fsynced
 * ({@code syncMeta}), and the Raft RPC server bound to {@code host} only (JRaft's default server
 * factory binds every interface, and its RPCs are not authenticated yet).
 */
public final class RaftKvStore implements KvStore, LeaderProposer {
    private static final Logger LOG = LoggerFactory.getLogger(RaftKvStore.class);
    static final String GROUP = "lodestar";
    private static final long RETRY_DELAY_MS = 25;
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
    /** A size-triggered snapshot is under way: set by the tick that asks for it, cleared by its completion. */
    private final AtomicBoolean snapshotting = new AtomicBoolean();

    private final PeerCredentials credentials;
    private final ForwardClient forwarder;
    private final Map<String, PeerMessageHandler> peerHandlers = new ConcurrentHashMap<>();
    private final AtomicBoolean publishing = new AtomicBoolean();
    private final Deadlines deadlines;
    private final Deadlines readDeadlines;
    private RaftGroupService service;
    private volatile NodeImpl node;
    private volatile ReadinessTracker readiness;
    private volatile MemberDirectory members;
    private volatile RaftClusterAdmin admin;
    private volatile long term;
    private volatile long leaderTerm = -1;
    private volatile String haltReason;
    private volatile boolean closed;

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
        this.validator = new CommandValidator(config.keyspaces(), config.maxValueBytes());
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
                config.blockCacheBytes(),
                feed,
                completions.executor(),
                background);
        this.credentials = new PeerCredentials(config.clusterSecret(), config.self());
        this.forwarder = new ForwardClient(credentials);
        this.disk = new DiskGuard(config.dataDir(), config.diskReserveBytes());
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

    private static final AtomicBoolean LOG_OPTIONS_SET = new AtomicBoolean();

    /**
     * The Raft log's RocksDB, as JRaft opens it, with bounds of our own. Process-wide, set once.
     *
     * <ul>
     *   <li>Two 8 MiB memtables, not JRaft's three of 64 MiB: resident memory would grow by hundreds
     *       of MiB under a write burst before anything is flushed; appends are fsynced one batch at a
     *       time either way.</li>
     *   <li>WAL files up to 16 MiB in all, not 1 GiB: the configuration column family is written
     *       rarely, its memtable pins every WAL file since its first write, and only this limit forces
     *       it out, so a truncated log's space was given back only after a GiB of writes.</li>
     * </ul>
     */
    private static void boundRaftLogStore() {
        if (LOG_OPTIONS_SET.compareAndSet(false, true)) {
            ColumnFamilyOptions options = StorageOptionsFactory.getDefaultRocksDBColumnFamilyOptions()
                    .setWriteBufferSize(8L << 20)
                    .setMaxWriteBufferNumber(2);
            StorageOptionsFactory.registerRocksDBColumnFamilyOptions(RocksDBLogStorage.class, options);
            DBOptions db = StorageOptionsFactory.getDefaultRocksDBOptions()
                    .setMaxTotalWalSize(16L << 20)
                    .setKeepLogFileNum(4);
            StorageOptionsFactory.registerRocksDBOptions(RocksDBLogStorage.class, db);
        }
    }

    private void startNode() {
        Path raftDir = config.dataDir().resolve("raft");
        try {
            Files.createDirectories(raftDir);
        } catch (java.io.IOException e) {
            throw new StoreStartException("cannot create " + raftDir + ": " + e.getMessage(), e);
        }
        Configuration initial = new Configuration();
        List<String> peers = config.peers().isEmpty() ? List.of(config.self()) : config.peers();
        if (!initial.parse(String.join(",", peers))) {
            throw new StoreStartException("cannot parse peers " + peers, null);
        }
        if (!initial.contains(self)) {
            throw new StoreStartException("peers " + peers + " do not include this node " + config.self(), null);
        }

        boundRaftLogStore();
        SuspendSignalGuard.install();
        RaftOptions raftOptions = new RaftOptions();
        raftOptions.setSync(true);
        raftOptions.setSyncMeta(true);
        // RocksDB statistics on the Raft log cost CPU on every append and nothing reads them
        raftOptions.setOpenStatistics(false);
        NodeOptions options = new CredentialedNodeOptions(credentials);
        options.setFsm(fsm);
        options.setInitialConf(initial);
        options.setLogUri(raftDir.resolve("log").toString());
        options.setRaftMetaUri(raftDir.resolve("meta").toString());
        options.setSnapshotUri(raftDir.resolve("snapshot").toString());
        options.setElectionTimeoutMs(config.electionTimeoutMs());
        options.setSnapshotIntervalSecs(config.snapshotIntervalSecs());
        options.setRaftOptions(raftOptions);

        RpcServer rpcServer = new AuthenticatedRpcServer(
                new BoltRpcServer(new com.alipay.remoting.rpc.RpcServer(self.getIp(), self.getPort(), true)),
                config.clusterSecret());
        RaftRequestProcessors.register(rpcServer, GROUP, disk::refusal);
        ForwardServer.register(rpcServer, config.clusterSecret(), config.self(), this, peerHandlers);
        if (!rpcServer.init(null)) {
            throw new StoreStartException("cannot listen on " + config.self() + " (raft port in use?)", null);
        }
        // Registered before the node starts: a one-node group elects itself inside start(), and a
        // leadership event missed here would leave this node refusing every write as not leader.
        fsm.setRoleListener(new RoleListener() {
            @Override
            public void onRoleChange(String role, long newTerm, String leader) {
                if (newTerm >= 0) {
                    term = newTerm;
                }
                leaderTerm = "LEADER".equals(role) ? newTerm : -1;
                ReadinessTracker r = readiness;
                if (r != null) {
                    r.roleChanged(role, leader);
                }
            }

            @Override
            public void onHalted(String reason) {
                haltReason = reason;
                ReadinessTracker r = readiness;
                if (r != null) {
                    r.halted(reason);
                }
            }
        });
        service = new RaftGroupService(GROUP, self, options, rpcServer);
        Node started;
        try {
            started = service.start(false);
        } catch (RuntimeException e) {
            rpcServer.shutdown();
            throw e;
        }
        node = (NodeImpl) started;
        readiness = new ReadinessTracker(node);
        if (haltReason != null) {
            readiness.halted(haltReason);
        }
        members = new MemberDirectory(node, config.self(), initial, forwarder, fsm);
        scheduler.scheduleWithFixedDelay(this::tick, 0, TICK_MS, TimeUnit.MILLISECONDS);
        LOG.info(
                "raft node {} started: peers {}, data in {}",
                config.self(),
                peers,
                config.dataDir().toAbsolutePath());
    }

    private int ticks;

    /**
     * The store's one periodic task: fails requests past their deadline, probes readiness, and once
     * a second refreshes the member view. One task, not one per job: on an idle node every timer
     * wake costs CPU (the deadline sweep alone, every 50 ms, was 20 wakes a second), and a task
     * armed by a request would put a thread wake on that request's path.
     */
    private void tick() {
        try {
            deadlines.expire();
            readDeadlines.expire();
            readiness.probe();
            snapshotIfTheLogGrew();
            if (ticks++ % 5 == 0) {
                members.refresh();
                publishHttpAddress();
            }
        } catch (RuntimeException e) {
            LOG.warn("periodic store task failed", e);
        }
    }

    /**
     * Takes a snapshot once the log since the last one holds {@code snapshotEntries} entries or
     * {@code snapshotBytes} bytes (JRaft's own timer covers {@code snapshotIntervalSecs}). JRaft then
     * drops the log up to the snapshot before this one, so the log holds at most about two
     * thresholds' worth, and a follower up to one threshold behind catches up from the log. One at a
     * time.
     */
    private void snapshotIfTheLogGrew() {
        long entries = fsm.appliedIndex() - fsm.lastSnapshotIndex();
        long bytes = fsm.bytesSinceSnapshot();
        if ((entries < config.snapshotEntries() && bytes < config.snapshotBytes())
                || !snapshotting.compareAndSet(false, true)) {
            return;
        }
        LOG.debug("snapshot: {} entries, {} bytes of log since the last one", entries, bytes);
        try {
            node.snapshot(status -> {
                snapshotting.set(false);
                if (!status.isOk()) {
                    LOG.warn("snapshot after {} entries failed: {}", entries, status);
                }
            });
        } catch (RuntimeException e) {
            snapshotting.set(false);
            throw e;
        }
    }

    /** Each member writes its own HTTP address into the store once it is ready, if it changed. */
    private void publishHttpAddress() {
        String http = config.httpAddress();
        if (http == null
                || !readiness.current().ready()
                || http.equals(members.httpAddress(config.self()))
                || !publishing.compareAndSet(false, true)) {
            return;
        }
        writeUnchecked(Command.put(
                        MemberDirectory.KEYSPACE,
                        config.self().getBytes(StandardCharsets.UTF_8),
                        http.getBytes(StandardCharsets.UTF_8)))
                .whenComplete((r, e) -> {
                    publishing.set(false);
                    if (e != null) {
                        LOG.debug("publishing http address failed, will retry: {}", e.getMessage());
                    }
                });
    }

    @Override
    public CompletableFuture<WriteResult> write(Command command) {
        try {
            validator.check(command);
        } catch (InvalidRequestException e) {
            return CompletableFuture.failedFuture(e);
        }
        return completions.relay(writeUnchecked(command));
    }

    /** Writes without the API-boundary checks: for the store's own keyspaces. */
    private CompletableFuture<WriteResult> writeUnchecked(Command command) {
        CompletableFuture<WriteResult> future = new CompletableFuture<>();
        attempt(
                command,
                future,
                System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(config.requestTimeoutMs()),
                "no leader known");
        return future;
    }

    private void attempt(Command command, CompletableFuture<WriteResult> future, long deadline, String lastReason) {
        try {
            tryOnce(command, future, deadline, lastReason);
        } catch (RuntimeException e) {
            LOG.error("write failed unexpectedly", e);
            future.completeExceptionally(
                    e instanceof KvException ? e : new StoreUnavailableException("write failed: " + e, e));
        }
    }

    private void tryOnce(Command command, CompletableFuture<WriteResult> future, long deadline, String lastReason) {
        if (closed) {
            future.completeExceptionally(new StoreUnavailableException("the store is shutting down"));
            return;
        }
        long remainingMs = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
        if (remainingMs <= 0) {
            future.completeExceptionally(new NoLeaderException(
                    "no leader accepted the write within " + config.requestTimeoutMs() + " ms: " + lastReason));
            return;
        }
        if (node.isLeader()) {
            proposeAsLeader(command).whenComplete((result, error) -> {
                Throwable cause = unwrap(error);
                if (cause instanceof NotLeaderException nle) {
                    retryLater(command, future, deadline, nle.getMessage());
                } else if (cause != null) {
                    future.completeExceptionally(cause);
                } else {
                    future.complete(result);
                }
            });
            return;
        }
        PeerId leader = node.getLeaderId();
        if (leader == null || leader.isEmpty() || leader.equals(self)) {
            retryLater(command, future, deadline, "no leader known");
            return;
        }
        String target = leader.getEndpoint().toString();
        forwarder.write(target, command, remainingMs).whenComplete((result, error) -> {
            Throwable cause = unwrap(error);
            if (cause instanceof NotLeaderException || cause instanceof NoLeaderException) {
                retryLater(command, future, deadline, cause.getMessage());
            } else if (cause != null) {
                future.completeExceptionally(cause);
            } else {
                // Answer once this node has applied it too, so a read here sees the write. A node
                // that cannot (cut off from the leader's log) must not claim that: the write is
                // committed, but the caller cannot read it here, so it gets "unknown, read first"
                fsm.awaitApplied(result.index())
                        .orTimeout(
                                Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())),
                                TimeUnit.MILLISECONDS)
                        .whenComplete((v, e) -> {
                            if (e == null) {
                                future.complete(result);
                            } else {
                                future.completeExceptionally(new WriteOutcomeUnknownException("committed by " + target
                                        + " at index " + result.index() + ", but not applied on this node within "
                                        + config.requestTimeoutMs() + " ms: reads here may not show it yet"));
                            }
                        });
            }
        });
    }

    private void retryLater(Command command, CompletableFuture<WriteResult> future, long deadline, String reason) {
        try {
            scheduler.schedule(() -> attempt(command, future, deadline, reason), RETRY_DELAY_MS, TimeUnit.MILLISECONDS);
        } catch (java.util.concurrent.RejectedExecutionException e) {
            future.completeExceptionally(new StoreUnavailableException("the store is shutting down"));
        }
    }

    /** Proposes on this node if it leads; fails with {@link NotLeaderException} otherwise. */
    @Override
    public CompletableFuture<WriteResult> proposeAsLeader(Command command) {
        CompletableFuture<WriteResult> future = new CompletableFuture<>();
        String full = disk.refusal();
        if (full != null) {
            future.completeExceptionally(new StoreUnavailableException(config.self() + ": " + full));
            return future;
        }
        long expectedTerm = leaderTerm;
        if (closed || expectedTerm < 0 || node == null || !node.isLeader()) {
            future.completeExceptionally(new NotLeaderException(leaderHint()));
            return future;
        }
        Task task = new Task();
        task.setData(ByteBuffer.wrap(KvStateMachine.CODEC.encode(command)));
        task.setExpectedTerm(expectedTerm);
        task.setDone(
                new ProposeClosure(command, future::complete, status -> future.completeExceptionally(failure(status))));
        deadlines.add(future);
        try {
            node.apply(task);
        } catch (RuntimeException e) {
            // JRaft throws instead of failing the closure once it is shutting down
            future.completeExceptionally(new StoreUnavailableException("the store is shutting down", e));
        }
        return future;
    }

    private KvException failure(Status status) {
        if (ProposeClosure.refusedBeforeAppend(status)) {
            if (status.getRaftError() == RaftError.ENODESHUTDOWN) {
                return new StoreUnavailableException("the store is shutting down");
            }
            if (status.getRaftError() == RaftError.EBUSY
                    && !status.getErrorMsg().contains("transferring")) {
                return new StoreUnavailableException("the leader is overloaded: " + status.getErrorMsg());
            }
            return new NotLeaderException(leaderHint());
        }
        return new WriteOutcomeUnknownException("leader could not confirm the write: " + status);
    }

    private String leaderHint() {
        if (node == null) {
            return null;
        }
        PeerId leader = node.getLeaderId();
        return leader == null || leader.isEmpty() || leader.equals(self)
                ? null
                : leader.getEndpoint().toString();
    }

    /** This node's Raft address, host:port, as its peers name it. */
    public String self() {
        return config.self();
    }

    @Override
    public NodeStatus status() {
        if (members == null) {
            return new NodeStatus("STARTING", term, null);
        }
        return new NodeStatus(members.ownState().name(), term, leaderHint());
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
        return completions.relay(readIndex());
    }

    private CompletableFuture<Void> readIndex() {
        CompletableFuture<Void> future = new CompletableFuture<>();
        if (closed) {
            future.completeExceptionally(new StoreUnavailableException("the store is shutting down"));
            return future;
        }
        try {
            // no JRaft timer (-1): readDeadlines bounds the wait (see Deadlines for why)
            readDeadlines.add(future);
            node.readIndex(new byte[0], new ReadIndexClosure(-1) {
                @Override
                public void run(Status status, long index, byte[] reqCtx) {
                    if (status.isOk()) {
                        future.complete(null);
                    } else {
                        future.completeExceptionally(new NoLeaderException(
                                "linearizable read not confirmed by a leader: " + status.getErrorMsg()));
                    }
                }
            });
        } catch (IllegalStateException e) {
            // JRaft throws (after failing the closure) once the node is shutting down
            future.completeExceptionally(new StoreUnavailableException("the store is shutting down"));
        }
        return future;
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
        return full != null ? new Readiness(false, full) : readiness.current();
    }

    @Override
    public LogStats logStats() {
        return new LogStats(
                directorySize(config.dataDir().resolve("raft").resolve("log")),
                Math.max(0, fsm.appliedIndex() - fsm.lastSnapshotIndex()),
                fsm.bytesSinceSnapshot(),
                fsm.lastSnapshotIndex(),
                fsm.lastSnapshotAtMillis(),
                fsm.lastSnapshotMillis(),
                fsm.snapshotsTaken(),
                disk.freeBytes());
    }

    private static long directorySize(Path dir) {
        try (var files = Files.list(dir)) {
            return files.mapToLong(f -> {
                        try {
                            return Files.isRegularFile(f) ? Files.size(f) : 0;
                        } catch (java.io.IOException e) {
                            return 0; // deleted meanwhile (a compaction)
                        }
                    })
                    .sum();
        } catch (java.io.IOException e) {
            return 0;
        }
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
        return new PeerChannel() {
            @Override
            public CompletableFuture<byte[]> send(String peer, String topic, byte[] payload, long timeoutMillis) {
                if (closed) {
                    return CompletableFuture.failedFuture(new StoreUnavailableException("the store is shutting down"));
                }
                return completions.relay(forwarder.message(peer, topic, payload, timeoutMillis));
            }

            @Override
            public void handle(String topic, PeerMessageHandler handler) {
                peerHandlers.put(topic, handler);
            }
        };
    }

    @Override
    public ClusterView cluster() {
        return members.view(term);
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
        CompletableFuture<Void> future = new CompletableFuture<>();
        node.snapshot(status -> {
            if (status.isOk()) {
                future.complete(null);
            } else {
                future.completeExceptionally(new StoreUnavailableException("snapshot failed: " + status));
            }
        });
        return completions.relay(future);
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        handOverLeadership();
        closed = true;
        closeQuietly();
    }

    private void handOverLeadership() {
        if (node == null || !node.isLeader()) {
            return;
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(3);
        for (String target : members.followers()) {
            if (!node.isLeader() || System.nanoTime() > deadline) {
                break;
            }
            Status st = node.transferLeadershipTo(PeerId.parsePeer(target));
            if (!st.isOk()) {
                LOG.warn("leadership transfer to {} failed: {}", target, st);
                continue;
            }
            // The node is TRANSFERRING until the target asks for its vote (then it steps down,
            // and follows the target once that has won) or the transfer times out after an
            // election timeout (then it leads again, and the next follower is tried: the target
            // may have stopped since it last reported). Shutting down while TRANSFERRING would
            // cancel the transfer and leave the group leaderless for an election timeout.
            if (!await(() -> node.getNodeState() != State.STATE_TRANSFERRING, deadline)) {
                return;
            }
            long wonBy =
                    Math.min(deadline, System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(config.electionTimeoutMs()));
            if (!await(() -> followsAnotherLeader() || node.isLeader(), wonBy)) {
                return;
            }
            if (followsAnotherLeader()) {
                LOG.info("leadership handed to {} before shutdown", node.getLeaderId());
                return;
            }
            LOG.warn("leadership transfer to {} did not complete", target);
        }
    }

    /** Polls until {@code condition} holds or {@code deadline} passes; false if interrupted. */
    private static boolean await(java.util.function.BooleanSupplier condition, long deadline) {
        while (!condition.getAsBoolean() && System.nanoTime() < deadline) {
            try {
                Thread.sleep(10);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }
        return true;
    }

    private boolean followsAnotherLeader() {
        PeerId leader = node.getLeaderId();
        return node.getNodeState() == State.STATE_FOLLOWER
                && leader != null
                && !leader.isEmpty()
                && !leader.equals(self);
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

    private static Throwable unwrap(Throwable error) {
        return error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
    }

    private static java.util.concurrent.ThreadFactory daemon(String name) {
        return r -> {
            Thread t = new Thread(r, name);
            t.setDaemon(true);
            return t;
        };
    }
}
