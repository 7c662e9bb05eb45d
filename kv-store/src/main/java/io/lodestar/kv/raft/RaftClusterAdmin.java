package io.lodestar.kv.raft;

import com.alipay.sofa.jraft.CliService;
import com.alipay.sofa.jraft.RaftServiceFactory;
import com.alipay.sofa.jraft.Status;
import com.alipay.sofa.jraft.conf.Configuration;
import com.alipay.sofa.jraft.entity.PeerId;
import com.alipay.sofa.jraft.option.CliOptions;
import io.lodestar.error.InvalidRequestException;
import io.lodestar.kv.StoreUnavailableException;
import io.lodestar.kv.cluster.ClusterAdmin;
import io.lodestar.kv.raftport.CredentialedCliOptions;
import io.lodestar.kv.raftport.PeerCredentials;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Supplier;

/**
 * {@link ClusterAdmin} through JRaft's CLI service, which finds the leader among the current
 * members and sends it the change. Its calls block, so they run on a thread of their own.
 */
final class RaftClusterAdmin implements ClusterAdmin, AutoCloseable {
    private final Supplier<List<String>> members;
    private final CliService cli;
    private final ExecutorService executor = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "cluster-admin");
        t.setDaemon(true);
        return t;
    });

    RaftClusterAdmin(Supplier<List<String>> members, PeerCredentials credentials, int timeoutMs) {
        this.members = members;
        CliOptions options = new CredentialedCliOptions(credentials);
        options.setTimeoutMs(timeoutMs);
        options.setMaxRetry(3);
        this.cli = RaftServiceFactory.createAndInitCliService(options);
    }

    @Override
    public CompletableFuture<Void> addMember(String address) {
        return run(address, true, (conf, peer) -> cli.addPeer(RaftKvStore.GROUP, conf, peer));
    }

    @Override
    public CompletableFuture<Void> removeMember(String address) {
        return run(address, false, (conf, peer) -> cli.removePeer(RaftKvStore.GROUP, conf, peer));
    }

    @Override
    public CompletableFuture<Void> transferLeadership(String address) {
        return run(address, false, (conf, peer) -> cli.transferLeader(RaftKvStore.GROUP, conf, peer));
    }

    private interface Change {
        Status apply(Configuration conf, PeerId peer);
    }

    private CompletableFuture<Void> run(String address, boolean adding, Change change) {
        PeerId peer = address == null ? null : PeerId.parsePeer(address.trim());
        if (peer == null || peer.isEmpty() || peer.getPort() <= 0) {
            return CompletableFuture.failedFuture(
                    new InvalidRequestException("address", "'" + address + "' is not host:raftPort"));
        }
        List<String> current = members.get();
        String normalized = peer.getEndpoint().toString();
        if (adding == current.contains(normalized)) {
            return CompletableFuture.failedFuture(new InvalidRequestException(
                    "address", normalized + (adding ? " is already a member" : " is not a member") + " of " + current));
        }
        Configuration conf = new Configuration();
        conf.parse(String.join(",", current));
        return CompletableFuture.supplyAsync(
                () -> {
                    Status status = change.apply(conf, peer);
                    if (!status.isOk()) {
                        throw new StoreUnavailableException("the group refused the change: " + status.getErrorMsg());
                    }
                    return null;
                },
                executor);
    }

    @Override
    public void close() {
        executor.shutdownNow();
        cli.shutdown();
    }
}
