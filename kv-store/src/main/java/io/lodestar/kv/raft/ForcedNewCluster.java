package io.lodestar.kv.raft;

import com.alipay.sofa.jraft.Status;
import com.alipay.sofa.jraft.conf.Configuration;
import com.alipay.sofa.jraft.core.NodeImpl;
import com.alipay.sofa.jraft.entity.PeerId;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Makes a started node the only member of its group, keeping everything in its log and store:
 * the way back into service after the group lost its majority for good, without deleting data.
 * JRaft's {@code resetPeers} changes the configuration on this node alone; the node then elects
 * itself, and its first act as leader appends the one-member configuration to its log, so the
 * change outlives a restart. Every entry in this node's log is then committed, including any the
 * old group never committed: what the old majority had acknowledged is here only if this node had
 * received it, which is why the most advanced survivor is the one to run this on.
 *
 * <p>The dropped members must not run again on their old data: two of three could still elect a
 * leader of the old configuration among themselves. They rejoin empty, by {@code add-member}.
 */
final class ForcedNewCluster {
    private static final Logger LOG = LoggerFactory.getLogger(ForcedNewCluster.class);

    private ForcedNewCluster() {}

    /** Resets {@code node}'s group to {@code self} alone; returns the members dropped. */
    static List<String> apply(NodeImpl node, PeerId self) {
        Configuration before = node.getCurrentConf();
        List<String> dropped = before == null
                ? List.of()
                : before.listPeers().stream()
                        .filter(p -> !p.equals(self))
                        .map(p -> p.getEndpoint().toString())
                        .toList();
        Status status = node.resetPeers(new Configuration(List.of(self)));
        if (!status.isOk()) {
            throw new StoreStartException("--force-new-cluster refused by the Raft node: " + status, null);
        }
        LOG.warn("**************************************************************************");
        LOG.warn("FORCED NEW CLUSTER: {} is now the only member of its group, with all it applied", self);
        LOG.warn("members dropped: {}", dropped.isEmpty() ? "none (it was alone already)" : dropped);
        LOG.warn("do not start a dropped member on its old data: wipe it, start it, then add-member it");
        LOG.warn("**************************************************************************");
        return dropped;
    }
}
