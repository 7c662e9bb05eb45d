package io.lodestar.kv.raftport;

import io.lodestar.kv.RaftPortSettings;
import io.lodestar.limits.CountsByAddress;
import java.net.InetAddress;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/** The connections that have not proved the cluster secret yet: bounded on the node and per address. */
final class UnprovenSlots {
    private final int cap;
    private final AtomicInteger held = new AtomicInteger();
    private final CountsByAddress<InetAddress> byAddress;
    private final Consumer<String> refusals;

    UnprovenSlots(RaftPortSettings settings) {
        this.cap = settings.unprovenConnections();
        this.byAddress = new CountsByAddress<>(settings.unprovenPerAddress());
        this.refusals = settings.refusals();
    }

    /** A slot for a connection from {@code address}, or null when the node or the address holds its share. */
    Runnable tryTake(InetAddress address) {
        if (held.incrementAndGet() > cap) {
            held.decrementAndGet();
            refusals.accept(RaftPortSettings.UNPROVEN_LIMIT);
            return null;
        }
        if (!byAddress.tryAcquire(address)) {
            held.decrementAndGet();
            refusals.accept(RaftPortSettings.UNPROVEN_PER_ADDRESS_LIMIT);
            return null;
        }
        AtomicBoolean given = new AtomicBoolean();
        return () -> {
            if (!given.compareAndSet(false, true)) {
                return;
            }
            byAddress.release(address);
            held.decrementAndGet();
        };
    }

    int held() {
        return held.get();
    }
}
