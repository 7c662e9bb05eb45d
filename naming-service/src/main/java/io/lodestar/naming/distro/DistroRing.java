package io.lodestar.naming.distro;

import io.lodestar.kv.cluster.ClusterView;
import io.lodestar.kv.cluster.MemberState;
import io.lodestar.naming.model.ServiceKey;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.zip.CRC32;

/**
 * Which live member owns a service's ephemeral instances: the service key's CRC32 over the sorted
 * live members. Live = this node, plus every member this node can reach (the store's member
 * directory polls them once a second, and needs three misses to call one unreachable). Two nodes
 * agree on owners while they agree on who is live; while they do not (a member just died, a
 * partition), a service may briefly have two owners, and checksum verification reconciles them
 * afterwards.
 *
 * <p>The member view is re-read at most every {@value #REFRESH_MILLIS} ms, not per call: every
 * registration and beat asks for an owner, and a fresh view reads each member's HTTP address from
 * the store. That refresh interval is small beside the directory's own lag in noticing a member
 * come or go.
 */
public final class DistroRing {
    private static final long REFRESH_MILLIS = 100;
    private static final long REFRESH_NANOS = TimeUnit.MILLISECONDS.toNanos(REFRESH_MILLIS);

    private final Supplier<ClusterView> view;
    private volatile Members members;

    /** One reading of the view: this node, the live members (sorted, this node included) and the others. */
    private record Members(String self, List<String> live, List<String> peers, long readAtNanos) {}

    public DistroRing(Supplier<ClusterView> view) {
        this.view = view;
    }

    private Members members() {
        Members m = members;
        long now = System.nanoTime();
        if (m == null || now - m.readAtNanos() >= REFRESH_NANOS) {
            m = read(now);
            members = m;
        }
        return m;
    }

    private Members read(long now) {
        ClusterView v = view.get();
        List<String> live = new ArrayList<>();
        for (ClusterView.Member m : v.members()) {
            if (m.address().equals(v.self()) || m.state() != MemberState.UNREACHABLE) {
                live.add(m.address());
            }
        }
        if (!live.contains(v.self())) {
            live.add(v.self());
        }
        live.sort(null);
        return new Members(
                v.self(),
                List.copyOf(live),
                live.stream().filter(a -> !a.equals(v.self())).toList(),
                now);
    }

    /** This node's address. */
    public String self() {
        return members().self();
    }

    /** The live members, sorted; always holds this node. */
    public List<String> live() {
        return members().live();
    }

    /** The live members other than this node. */
    public List<String> peers() {
        return members().peers();
    }

    public String owner(ServiceKey service) {
        return ownerAmong(live(), service);
    }

    /** The owner of {@code service} as a member that sees {@code live} (sorted) as the live members. */
    static String ownerAmong(List<String> live, ServiceKey service) {
        if (live.size() == 1) {
            return live.get(0);
        }
        CRC32 crc = new CRC32();
        crc.update((service.namespace() + '\u0000' + service.group() + '\u0000' + service.service())
                .getBytes(StandardCharsets.UTF_8));
        return live.get((int) (crc.getValue() % live.size()));
    }

    public boolean ownsLocally(ServiceKey service) {
        Members m = members();
        return ownerAmong(m.live(), service).equals(m.self());
    }
}
