package io.lodestar.kv.raft;

import com.alipay.sofa.jraft.Node;
import com.alipay.sofa.jraft.RaftGroupService;
import com.alipay.sofa.jraft.conf.Configuration;
import com.alipay.sofa.jraft.entity.PeerId;
import com.alipay.sofa.jraft.option.NodeOptions;
import com.alipay.sofa.jraft.option.RaftOptions;
import com.alipay.sofa.jraft.rpc.RpcServer;
import com.alipay.sofa.jraft.storage.impl.RocksDBLogStorage;
import com.alipay.sofa.jraft.util.StorageOptionsFactory;
import io.lodestar.kv.KvStoreConfig;
import io.lodestar.kv.raftport.AuthenticatedRpcServer;
import io.lodestar.kv.raftport.CredentialedNodeOptions;
import io.lodestar.kv.raftport.PeerCredentials;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import org.rocksdb.ColumnFamilyOptions;
import org.rocksdb.DBOptions;

/**
 * Builds and starts this member's JRaft node: its options, its Raft RPC server and the group
 * service. JRaft options chosen on purpose: log fsync on ({@code sync}), term and vote fsynced
 * ({@code syncMeta}), and the Raft RPC server bound to {@code host} only (JRaft's default server
 * factory binds every interface). Its RPCs are authenticated: {@link AuthenticatedRpcServer} serves
 * a request only on a connection that proved the cluster secret, and only in the name of the member
 * it proved to be; the answers this node decodes pass an allowlist ({@code BoltSerialization}).
 */
final class RaftNodeBootstrap {
    private static final AtomicBoolean LOG_OPTIONS_SET = new AtomicBoolean();

    /** The service that runs the node, the node, and the configuration it started with. */
    record Started(RaftGroupService service, Node node, Configuration initial, List<String> peers) {}

    private RaftNodeBootstrap() {}

    /**
     * Starts the node over {@code fsm}. {@code register} adds the store's own processors to the RPC
     * server before it listens.
     */
    static Started start(
            KvStoreConfig config,
            PeerId self,
            PeerCredentials credentials,
            KvStateMachine fsm,
            Consumer<RpcServer> register) {
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

        RpcServer rpcServer = AuthenticatedRpcServer.create(
                self.getIp(), self.getPort(), config.clusterSecret(), config.raftPortSettings());
        register.accept(rpcServer);
        if (!rpcServer.init(null)) {
            throw new StoreStartException("cannot listen on " + config.self() + " (raft port in use?)", null);
        }
        RaftGroupService service = new RaftGroupService(RaftKvStore.GROUP, self, options, rpcServer);
        Node node;
        try {
            node = service.start(false);
        } catch (RuntimeException e) {
            rpcServer.shutdown();
            throw e;
        }
        return new Started(service, node, initial, peers);
    }

    /**
     * The Raft log's RocksDB, as JRaft opens it, with bounds of our own. Process-wide, set once.
     *
     * <ul>
     *   <li>Two small memtables, not JRaft's three large ones: resident memory would grow under a
     *       write burst before anything is flushed; appends are fsynced one batch at a time either
     *       way.</li>
     *   <li>A small bound on the WAL files in all, not JRaft's large one: the configuration column
     *       family is written rarely, its memtable pins every WAL file since its first write, and
     *       only this limit forces it out, so a truncated log's space came back only after as many
     *       bytes of writes as the bound.</li>
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
}
