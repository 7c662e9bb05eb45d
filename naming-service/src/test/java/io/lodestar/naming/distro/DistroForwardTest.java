package io.lodestar.naming.distro;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.lodestar.kv.StoreUnavailableException;
import io.lodestar.kv.WriteOutcomeUnknownException;
import io.lodestar.kv.cluster.ClusterView;
import io.lodestar.kv.cluster.MemberState;
import io.lodestar.kv.cluster.PeerChannel;
import io.lodestar.kv.cluster.PeerMessageHandler;
import io.lodestar.kv.testing.Await;
import io.lodestar.naming.ephemeral.EphemeralRegistry;
import io.lodestar.naming.ephemeral.ExpiryRules;
import io.lodestar.naming.model.Instance;
import io.lodestar.naming.model.ServiceKey;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** Where a forwarded write goes when its owner refuses it, with a scripted channel: no sockets, no timing. */
class DistroForwardTest {
    private static final String SELF = "127.0.0.1:1";
    private static final List<String> MEMBERS = List.of(SELF, "127.0.0.1:2", "127.0.0.1:3");
    private static final Distro.Options OPTIONS = new Distro.Options(50, 60_000, 1_000, 10_000);

    /** Answers WRITE to the owner with a refusal, then (asked again) with no answer; anything else is answered. */
    private static final class RefusingThenSilentOwner implements PeerChannel {
        final String owner;
        final AtomicInteger writesToOwner = new AtomicInteger();
        final AtomicInteger writesElsewhere = new AtomicInteger();

        RefusingThenSilentOwner(String owner) {
            this.owner = owner;
        }

        @Override
        public CompletableFuture<byte[]> send(String peer, String topic, byte[] payload, long timeoutMillis) {
            if (!topic.equals(Distro.WRITE)) {
                return CompletableFuture.completedFuture(
                        DistroCodec.encode(out -> DistroCodec.writeCopies(out, List.of())));
            }
            if (!peer.equals(owner)) {
                writesElsewhere.incrementAndGet();
                return CompletableFuture.completedFuture(new byte[0]);
            }
            return writesToOwner.incrementAndGet() == 1
                    ? CompletableFuture.failedFuture(new StoreUnavailableException("starting: no Distro handler yet"))
                    : CompletableFuture.failedFuture(new WriteOutcomeUnknownException(
                            "no answer from " + peer + " within " + timeoutMillis + " ms"));
        }

        @Override
        public void handle(String topic, PeerMessageHandler handler) {}
    }

    @Test
    void aRefusedWriteWhoseRetryGoesUnansweredFailsRetriablyAndIsAppliedNowhereElse() throws Exception {
        ServiceKey service = ownedByAnother();
        String owner = DistroRing.ownerAmong(MEMBERS, service);
        RefusingThenSilentOwner channel = new RefusingThenSilentOwner(owner);
        AtomicInteger appliedHere = new AtomicInteger();
        DistroRing ring = new DistroRing(() -> new ClusterView(
                SELF,
                SELF,
                1,
                1,
                1,
                MEMBERS.stream()
                        .map(m -> new ClusterView.Member(m, null, MemberState.FOLLOWER))
                        .toList()));
        Distro distro = new Distro(
                        channel,
                        ring,
                        new EphemeralRegistry(Clock.systemUTC(), ExpiryRules.DEFAULT, s -> {}),
                        write -> {
                            appliedHere.incrementAndGet();
                            return CompletableFuture.completedFuture(null);
                        },
                        OPTIONS)
                .start();
        try {
            Await.until("the (empty) copy of the peers loaded", distro::loaded);
            Instance instance = new Instance(null, "127.0.7.1", 8080, 1, true, true, true, "DEFAULT", Map.of());
            CompletableFuture<?> write = distro.write(new EphemeralWrite.Register(service, instance, null));

            ExecutionException e = assertThrows(ExecutionException.class, () -> write.get(10, TimeUnit.SECONDS));
            assertInstanceOf(
                    StoreUnavailableException.class, e.getCause(), "a retriable refusal, as the owner answered");
            assertEquals(2, channel.writesToOwner.get(), "asked again after the refusal");
            assertEquals(0, appliedHere.get(), "not applied on the forwarding node");
            assertEquals(0, channel.writesElsewhere.get(), "not sent to the heir");
        } finally {
            distro.close();
        }
    }

    private static ServiceKey ownedByAnother() {
        for (int n = 0; ; n++) {
            ServiceKey s = ServiceKey.of("public", "DEFAULT_GROUP", "owned-" + n);
            if (!DistroRing.ownerAmong(MEMBERS, s).equals(SELF)) {
                return s;
            }
        }
    }
}
