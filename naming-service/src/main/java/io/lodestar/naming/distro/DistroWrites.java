package io.lodestar.naming.distro;

import io.lodestar.error.Failures;
import io.lodestar.error.InvalidRequestException;
import io.lodestar.error.LimitExceededException;
import io.lodestar.kv.StoreUnavailableException;
import io.lodestar.kv.cluster.PeerChannel;
import io.lodestar.kv.retry.RetryUntilDeadline;
import io.lodestar.naming.BeatResult;
import io.lodestar.naming.InstanceNotFoundException;
import io.lodestar.naming.ephemeral.EphemeralRegistry;
import io.lodestar.naming.ephemeral.ServiceCopy;
import io.lodestar.naming.model.ServiceKey;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes: each goes to its service's owner, which applies it and answers with its copy of the
 * service (see {@link Distro} for who owns what and what happens when the owner cannot be reached
 * or is starting). Answers complete on the peer channel's thread, or on the caller's when this
 * node applies the write itself; retries wait on Distro's timer.
 */
final class DistroWrites {
    private static final Logger LOG = LoggerFactory.getLogger(Distro.class);
    private static final long NOT_READY_RETRY_MS = 100;

    private final PeerChannel channel;
    private final DistroRing ring;
    private final EphemeralRegistry registry;
    private final LocalWrites local;
    private final PeerCopies copies;
    private final StartupLoad load;
    private final Distro.Options options;
    /** Forwards a write again while its owner refuses it. */
    private final RetryUntilDeadline whileNotReady;

    DistroWrites(
            PeerChannel channel,
            DistroRing ring,
            EphemeralRegistry registry,
            LocalWrites local,
            PeerCopies copies,
            StartupLoad load,
            ScheduledExecutorService timer,
            Distro.Options options) {
        this.channel = channel;
        this.ring = ring;
        this.registry = registry;
        this.local = local;
        this.copies = copies;
        this.load = load;
        this.options = options;
        this.whileNotReady = new RetryUntilDeadline(
                timer,
                Duration.ofMillis(NOT_READY_RETRY_MS),
                DistroWrites::notReady,
                last -> last != null ? last : new StoreUnavailableException("no time was left to forward the write"),
                () -> new StoreUnavailableException("this node is stopping"));
    }

    /**
     * Applies {@code write} on the service's owner: here if this node owns it, else forwarded (and
     * applied here if the owner cannot be reached). Completes as {@link LocalWrites#applyLocally}.
     *
     * <p>While this node is still copying its peers' instances ({@link Distro#loaded()} false) it holds
     * only part of them, and a write applied to that part could be lost (a deregistration of an
     * instance not copied yet finds nothing to remove). So meanwhile it owns nothing: every write
     * goes to the owner among its peers, and if that fails the write fails ({@link
     * StoreUnavailableException}, a 503 the client retries on another server) rather than being
     * applied here.
     */
    CompletableFuture<BeatResult> write(EphemeralWrite write) {
        boolean copyWhole = load.loaded();
        String owner = copyWhole ? ring.owner(write.service()) : ownerWhileCopying(write.service());
        if (owner.equals(ring.self())) {
            return local.applyLocally(write);
        }
        byte[] body = DistroCodec.encode(out -> EphemeralWrite.write(out, write));
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(options.requestTimeoutMs());
        return forward(owner, body, deadline)
                .handle((answer, error) -> {
                    if (error == null) {
                        return CompletableFuture.completedFuture(answerOf(write, answer));
                    }
                    if (notReady(error)) {
                        return CompletableFuture.<BeatResult>failedFuture(new StoreUnavailableException(
                                "the owner " + owner + " of " + write.service().groupedName()
                                        + " is starting and cannot take writes yet; retry"));
                    }
                    if (!copyWhole) {
                        return CompletableFuture.<BeatResult>failedFuture(
                                new StoreUnavailableException("this node is still "
                                        + "copying its peers' ephemeral instances and the service's owner " + owner
                                        + " could not take the write; retry, or send it to another member"));
                    }
                    return toHeir(write, owner, body, deadline, error);
                })
                .thenCompose(f -> f);
    }

    /**
     * A write whose owner could not be reached goes to the member that owns the service once the
     * owner is seen gone: the heir, which ages the instances from then on and so must hear their
     * beats, also while this node still counts the owner live. Applied here if this node is the
     * heir or the heir cannot be reached either.
     */
    private CompletableFuture<BeatResult> toHeir(
            EphemeralWrite write, String owner, byte[] body, long deadline, Throwable ownerError) {
        List<String> rest = ring.live().stream().filter(m -> !m.equals(owner)).toList();
        String heir = DistroRing.ownerAmong(rest, write.service());
        if (heir.equals(ring.self())) {
            LOG.debug(
                    "owner {} of {} unreachable ({}); applying the write here",
                    owner,
                    write.service(),
                    ownerError.toString());
            return local.applyLocally(write);
        }
        return forward(heir, body, deadline)
                .handle((answer, error) -> {
                    if (error == null) {
                        return CompletableFuture.completedFuture(answerOf(write, answer));
                    }
                    LOG.debug(
                            "owner {} and heir {} of {} unreachable ({}); applying the write here",
                            owner,
                            heir,
                            write.service(),
                            error.toString());
                    return local.applyLocally(write);
                })
                .thenCompose(f -> f);
    }

    /**
     * Sends a write to {@code owner}, again every {@value #NOT_READY_RETRY_MS} ms while it answers
     * that it cannot take it yet, until {@code deadlineNanos}. Once it has refused, it stays refused
     * unless it takes the write: a retry that goes unanswered (e.g. sent with the last millisecond
     * of the deadline) does not show the owner unreachable, and treating it so would apply the
     * write elsewhere, unknown to the owner.
     */
    private CompletableFuture<byte[]> forward(String owner, byte[] body, long deadlineNanos) {
        Throwable[] refusal = {null}; // this run's own: its attempts run one after another
        return whileNotReady
                .run(deadlineNanos, deadline -> {
                    long leftMs = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
                    return channel.send(owner, Distro.WRITE, body, Math.max(1, leftMs))
                            .whenComplete((answer, error) -> {
                                if (notReady(error)) {
                                    refusal[0] = Failures.cause(error);
                                }
                            });
                })
                .handle((answer, error) -> {
                    if (error == null) {
                        return answer;
                    }
                    throw new CompletionException(refusal[0] != null ? refusal[0] : Failures.cause(error));
                });
    }

    /**
     * Whether the owner answered and refused (no Distro handler yet, or still copying its peers):
     * the peer channel reports an answer it refused as {@link StoreUnavailableException}, and a
     * message it could not deliver or got no answer to as another error.
     */
    private static boolean notReady(Throwable error) {
        Throwable cause = Failures.cause(error);
        return cause instanceof StoreUnavailableException;
    }

    /** The owner among the peers, whose copy is whole; this node itself only when it has no peers. */
    private String ownerWhileCopying(ServiceKey service) {
        List<String> peers = ring.peers();
        return peers.isEmpty() ? ring.owner(service) : DistroRing.ownerAmong(peers, service);
    }

    /** Applies a write a peer forwarded, and answers with the outcome and this node's copy of the service. */
    CompletableFuture<byte[]> onWrite(byte[] body) {
        if (!load.loaded()) { // the sender, which holds a whole copy, applies the write itself
            return CompletableFuture.failedFuture(
                    new StoreUnavailableException("still copying the peers' ephemeral instances"));
        }
        EphemeralWrite write = DistroCodec.decode(body, EphemeralWrite::read);
        return local.applyLocally(write).handle((result, error) -> {
            Throwable cause = Failures.cause(error);
            Optional<ServiceCopy> copy = registry.copy(write.service());
            WriteStatus status = cause == null ? WriteStatus.applied(result) : WriteStatus.failed(cause);
            return DistroCodec.encode(out -> {
                out.writeByte(status.code());
                switch (status) {
                    case OK, BEAT_UNKNOWN -> out.writeLong(result == null ? 0 : result.clientBeatIntervalMs());
                    case INVALID_REQUEST -> {
                        InvalidRequestException invalid = (InvalidRequestException) cause;
                        out.writeString(invalid.field());
                        out.writeString(invalid.getMessage());
                    }
                    case INSTANCE_NOT_FOUND ->
                        DistroCodec.writeAddress(out, ((InstanceNotFoundException) cause).address());
                    case LIMIT_EXCEEDED -> {
                        LimitExceededException refused = (LimitExceededException) cause;
                        out.writeString(refused.limit());
                        out.writeString(refused.getMessage());
                    }
                    default -> out.writeString(String.valueOf(cause.getMessage()));
                }
                DistroCodec.writeCopies(out, copy.map(List::of).orElse(List.of()));
                DistroCodec.writeKeys(out, copy.isPresent() ? List.of() : List.of(write.service()));
            });
        });
    }

    private BeatResult answerOf(EphemeralWrite write, byte[] answer) {
        return DistroCodec.decode(answer, in -> {
            WriteStatus status = WriteStatus.of(in.readByte());
            RuntimeException failure = null;
            BeatResult result = null;
            switch (status) {
                case OK, BEAT_UNKNOWN -> {
                    long interval = in.readLong();
                    result = write instanceof EphemeralWrite.Beat
                            ? new BeatResult(
                                    status == WriteStatus.OK ? BeatResult.Status.OK : BeatResult.Status.UNKNOWN,
                                    interval)
                            : null;
                }
                case INVALID_REQUEST ->
                    failure = new InvalidRequestException(in.readString("field"), in.readString("message"));
                case INSTANCE_NOT_FOUND ->
                    failure = new InstanceNotFoundException(write.service(), DistroCodec.readAddress(in));
                case LIMIT_EXCEEDED ->
                    failure = LimitExceededException.relayedTooMany(in.readString("limit"), in.readString("message"));
                default ->
                    failure = new StoreUnavailableException(
                            "the service's owner failed the write: " + in.readString("message"));
            }
            DistroCodec.readCopies(in).forEach(copies::merge);
            DistroCodec.readKeys(in).forEach(copies::drop);
            if (failure != null) {
                throw failure;
            }
            return result;
        });
    }
}
