package io.lodestar.kv.raft;

import io.lodestar.kv.command.Command;
import io.lodestar.kv.command.WriteResult;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;
import java.util.function.Function;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes this member's HTTP address into the member directory once it is ready and whenever it
 * differs from what the directory holds, one write at a time, so the other members can name it to
 * clients.
 */
final class AddressPublisher {
    private static final Logger LOG = LoggerFactory.getLogger(RaftKvStore.class);

    private final String self;
    private final String httpAddress;
    private final BooleanSupplier ready;
    private final Supplier<MemberDirectory> members;
    private final Function<Command, CompletableFuture<WriteResult>> write;
    private final AtomicBoolean publishing = new AtomicBoolean();

    /** {@code httpAddress} null: nothing to publish. */
    AddressPublisher(
            String self,
            String httpAddress,
            BooleanSupplier ready,
            Supplier<MemberDirectory> members,
            Function<Command, CompletableFuture<WriteResult>> write) {
        this.self = self;
        this.httpAddress = httpAddress;
        this.ready = ready;
        this.members = members;
        this.write = write;
    }

    void publishIfChanged() {
        if (httpAddress == null
                || !ready.getAsBoolean()
                || httpAddress.equals(members.get().httpAddress(self))
                || !publishing.compareAndSet(false, true)) {
            return;
        }
        write.apply(Command.put(
                        MemberDirectory.KEYSPACE,
                        self.getBytes(StandardCharsets.UTF_8),
                        httpAddress.getBytes(StandardCharsets.UTF_8)))
                .whenComplete((r, e) -> {
                    publishing.set(false);
                    if (e != null) {
                        LOG.debug("publishing http address failed, will retry: {}", e.getMessage());
                    }
                });
    }
}
