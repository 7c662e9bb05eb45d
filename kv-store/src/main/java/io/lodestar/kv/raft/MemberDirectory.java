package io.lodestar.kv.raft;

import com.alipay.sofa.jraft.conf.Configuration;
import com.alipay.sofa.jraft.core.NodeImpl;
import com.alipay.sofa.jraft.core.State;
import com.alipay.sofa.jraft.entity.PeerId;
import io.lodestar.kv.KvEntry;
import io.lodestar.kv.cluster.ClusterView;
import io.lodestar.kv.cluster.MemberState;
import io.lodestar.kv.forward.ForwardClient;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Knows the members of the group: their addresses (from the committed configuration), their HTTP
 * addresses (each member publishes its own through the store, keyspace {@value #KEYSPACE}) and
 * their roles (each member is asked for its own, once a second). A member that answered before
 * is reported UNREACHABLE only after {@value #MISSES_BEFORE_UNREACHABLE} unanswered asks in a
 * row: a busy member that misses one deadline must not look dead to services that route by
 * liveness (Distro moves the ownership of ephemeral instances away from members it thinks dead).
 */
final class MemberDirectory {
    static final String KEYSPACE = "_members";
    private static final long STATUS_TIMEOUT_MS = 800;

    private final NodeImpl node;
    private final String self;
    private final Configuration initial;
    private final ForwardClient client;
    private final KvStateMachine fsm;
    private static final int MISSES_BEFORE_UNREACHABLE = 3;
    private final Map<String, MemberState> states = new ConcurrentHashMap<>();
    private final Map<String, Integer> misses = new ConcurrentHashMap<>();

    MemberDirectory(NodeImpl node, String self, Configuration initial, ForwardClient client, KvStateMachine fsm) {
        this.node = node;
        this.self = self;
        this.initial = initial;
        this.client = client;
        this.fsm = fsm;
    }

    /**
     * The node's current configuration, as JRaft acts on it. Not the state machine's last committed
     * one: JRaft tells the state machine only of changes made in two stages, so a group reset
     * ({@link ForcedNewCluster}) would never show.
     */
    List<String> members() {
        Configuration conf = node.getCurrentConf();
        if (conf == null || conf.isEmpty()) {
            conf = fsm.configuration();
        }
        List<String> out = new ArrayList<>();
        for (PeerId p : (conf == null || conf.isEmpty() ? initial : conf).listPeers()) {
            out.add(p.getEndpoint().toString());
        }
        return out;
    }

    /** Refreshes every other member's self-reported role; called periodically. */
    void refresh() {
        for (String member : members()) {
            if (member.equals(self)) {
                continue;
            }
            client.status(member, STATUS_TIMEOUT_MS).whenComplete((status, error) -> {
                if (error == null) {
                    misses.remove(member);
                    states.put(member, parse(status.state()));
                } else if (misses.merge(member, 1, Integer::sum) >= MISSES_BEFORE_UNREACHABLE) {
                    states.put(member, MemberState.UNREACHABLE);
                }
            });
        }
    }

    MemberState ownState() {
        State s = node.getNodeState();
        return switch (s) {
            case STATE_LEADER, STATE_TRANSFERRING -> MemberState.LEADER;
            case STATE_CANDIDATE -> MemberState.CANDIDATE;
            case STATE_FOLLOWER -> MemberState.FOLLOWER;
            default -> MemberState.UNREACHABLE;
        };
    }

    String httpAddress(String member) {
        KvEntry e = fsm.read(engine -> engine.get(KEYSPACE, member.getBytes(StandardCharsets.UTF_8)));
        return e == null ? null : new String(e.value(), StandardCharsets.UTF_8);
    }

    /**
     * The members last reported as followers, to hand leadership to, in configuration order. A
     * report is up to a refresh old: a member may have stopped since.
     */
    List<String> followers() {
        List<String> out = new ArrayList<>();
        for (String member : members()) {
            if (!member.equals(self) && states.get(member) == MemberState.FOLLOWER) {
                out.add(member);
            }
        }
        return out;
    }

    /** The other members last reported unreachable, in configuration order. */
    List<String> unreachable() {
        List<String> out = new ArrayList<>();
        for (String member : members()) {
            if (!member.equals(self) && states.get(member) == MemberState.UNREACHABLE) {
                out.add(member);
            }
        }
        return out;
    }

    ClusterView view(long term) {
        PeerId leaderId = node.getLeaderId();
        String leader = leaderId == null || leaderId.isEmpty()
                ? null
                : leaderId.getEndpoint().toString();
        List<ClusterView.Member> members = new ArrayList<>();
        for (String member : members()) {
            MemberState state = member.equals(self)
                    ? ownState()
                    : member.equals(leader) ? MemberState.LEADER : states.getOrDefault(member, MemberState.UNREACHABLE);
            members.add(new ClusterView.Member(member, httpAddress(member), state));
        }
        return new ClusterView(
                self, leader, term, node.getLastAppliedLogIndex(), node.getLastCommittedIndex(), members);
    }

    private static MemberState parse(String state) {
        try {
            return MemberState.valueOf(state);
        } catch (RuntimeException e) {
            return MemberState.UNREACHABLE;
        }
    }
}
