package io.lodestar.naming.distro;

import io.lodestar.kv.cluster.ClusterView;
import io.lodestar.kv.cluster.MemberState;
import io.lodestar.naming.model.ServiceKey;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import java.util.zip.CRC32;

/**
 * Which live member owns a service's ephemeral instances: the service key's CRC32 over the sorted
 * live members. Live = this node, plus every member this node can reach (the store's member
 * directory polls them). Two nodes agree on owners while they agree on who is live; while they do
 * not (a member just died, a partition), a service may briefly have two owners, and checksum
 * verification reconciles them afterwards.
 */
public final class DistroRing {
    private final Supplier<ClusterView> view;

    public DistroRing(Supplier<ClusterView> view) {
        this.view = view;
    }

    /** This node's address. */
    public String self() {
        return view.get().self();
    }

    /** The live members, sorted; always holds this node. */
    public List<String> live() {
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
        return live;
    }

    /** The live members other than this node. */
    public List<String> peers() {
        String self = self();
        return live().stream().filter(m -> !m.equals(self)).toList();
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
        return owner(service).equals(self());
    }
}
