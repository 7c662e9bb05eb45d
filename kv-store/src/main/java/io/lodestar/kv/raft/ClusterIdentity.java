package io.lodestar.kv.raft;

import io.lodestar.kv.KvEntry;
import io.lodestar.kv.command.Command;
import io.lodestar.kv.command.WriteResult;
import java.nio.charset.StandardCharsets;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;
import java.util.function.Function;

/**
 * The group's id: a random UUID the first ready leader writes once, through the log, so every
 * member (and every snapshot file, and a group restored from one) names the same. Written only if
 * absent, so two leaders in turn cannot give the group two ids.
 */
final class ClusterIdentity {
    private static final byte[] KEY = "#cluster-id".getBytes(StandardCharsets.UTF_8);

    private final KvStateMachine fsm;
    private final BooleanSupplier leadsAndReady;
    private final Function<Command, CompletableFuture<WriteResult>> write;
    private final AtomicBoolean writing = new AtomicBoolean();

    ClusterIdentity(
            KvStateMachine fsm,
            BooleanSupplier leadsAndReady,
            Function<Command, CompletableFuture<WriteResult>> write) {
        this.fsm = fsm;
        this.leadsAndReady = leadsAndReady;
        this.write = write;
    }

    /** The group's id, or "" until its first leader has written one. */
    String current() {
        KvEntry e = fsm.read(engine -> engine.get(MemberDirectory.KEYSPACE, KEY));
        return e == null ? "" : new String(e.value(), StandardCharsets.UTF_8);
    }

    /** Called periodically: on a ready leader of a group without an id, writes one. */
    void createIfMissing() {
        if (!current().isEmpty() || !leadsAndReady.getAsBoolean() || !writing.compareAndSet(false, true)) {
            return;
        }
        byte[] id = UUID.randomUUID().toString().getBytes(StandardCharsets.UTF_8);
        write.apply(Command.putIfRevision(MemberDirectory.KEYSPACE, KEY, id, 0))
                .whenComplete((r, e) -> writing.set(false));
    }
}
