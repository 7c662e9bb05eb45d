package io.lodestar.kv.forward;

import com.alipay.sofa.jraft.entity.PeerId;
import com.alipay.sofa.jraft.error.InvokeTimeoutException;
import com.alipay.sofa.jraft.rpc.InvokeCallback;
import com.alipay.sofa.jraft.rpc.RpcClient;
import com.alipay.sofa.jraft.util.Endpoint;
import com.alipay.sofa.jraft.util.RpcFactoryHelper;
import io.lodestar.kv.NoLeaderException;
import io.lodestar.kv.NotLeaderException;
import io.lodestar.kv.StoreUnavailableException;
import io.lodestar.kv.WriteOutcomeUnknownException;
import io.lodestar.kv.command.Command;
import io.lodestar.kv.command.WriteResult;
import io.lodestar.kv.raftport.CredentialedRpcOptions;
import io.lodestar.kv.raftport.HandshakeRefusedException;
import io.lodestar.kv.raftport.PeerCredentials;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sends requests on the node-to-node channel and turns replies into outcomes: a write either
 * completes with its result or fails with a typed {@link io.lodestar.kv.KvException} that says
 * whether it may have been applied.
 */
public final class ForwardClient implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ForwardClient.class);

    private static final long ANSWER_GRACE_MILLIS = 1_000;
    private static final java.security.SecureRandom RANDOM = new java.security.SecureRandom();
    private final FrameCodec codec;
    private final String self;
    private final RpcClient rpc;

    public ForwardClient(PeerCredentials credentials) {
        ForwardServer.registerSerializer();
        this.codec = new FrameCodec(credentials.clusterSecret());
        this.self = credentials.self();
        this.rpc = RpcFactoryHelper.rpcFactory().createRpcClient();
        this.rpc.init(new CredentialedRpcOptions(credentials));
    }

    /**
     * Forwards {@code command} to {@code leader}. Fails with {@link NotLeaderException} (nothing
     * proposed; retry elsewhere), {@link NoLeaderException} (unreachable, nothing sent),
     * {@link WriteOutcomeUnknownException} or {@link StoreUnavailableException}.
     */
    public CompletableFuture<WriteResult> write(String leader, Command command, long timeoutMillis) {
        return send(leader, ForwardRequest.WRITE, command, timeoutMillis).thenApply(reply -> {
            switch (reply.status()) {
                case ForwardReply.OK:
                    return reply.result();
                case ForwardReply.NOT_LEADER:
                    throw new NotLeaderException(reply.leader());
                case ForwardReply.UNKNOWN:
                    throw new WriteOutcomeUnknownException("leader " + leader + ": " + reply.message());
                default:
                    throw new StoreUnavailableException("leader " + leader + " refused the write: " + reply.message());
            }
        });
    }

    /** Asks {@code peer} for its own view of its role, term and leader. */
    public CompletableFuture<LeaderProposer.NodeStatus> status(String peer, long timeoutMillis) {
        return send(peer, ForwardRequest.STATUS, null, timeoutMillis).thenApply(reply -> {
            if (reply.status() != ForwardReply.OK) {
                throw new StoreUnavailableException(peer + " refused a status query: " + reply.message());
            }
            return new LeaderProposer.NodeStatus(reply.state(), reply.term(), reply.leader());
        });
    }

    /**
     * Delivers {@code payload} to the handler {@code peer} registered for {@code topic}; completes with
     * its answer, or fails with {@link StoreUnavailableException} (refused, no handler, the handler
     * failed), {@link NoLeaderException} (not sent) or {@link WriteOutcomeUnknownException} (no answer).
     */
    public CompletableFuture<byte[]> message(String peer, String topic, byte[] payload, long timeoutMillis) {
        ForwardRequest request = new ForwardRequest(
                ForwardRequest.MESSAGE, self, System.currentTimeMillis(), RANDOM.nextLong(), null, topic, payload);
        return send(peer, request, timeoutMillis).thenApply(reply -> {
            if (reply.status() != ForwardReply.OK) {
                throw new StoreUnavailableException(peer + " refused a " + topic + " message: " + reply.message());
            }
            return reply.payload() == null ? new byte[0] : reply.payload();
        });
    }

    private CompletableFuture<ForwardReply> send(String peer, byte kind, Command command, long timeoutMillis) {
        return send(
                peer,
                new ForwardRequest(kind, self, System.currentTimeMillis(), RANDOM.nextLong(), command),
                timeoutMillis);
    }

    private CompletableFuture<ForwardReply> send(String peer, ForwardRequest request, long timeoutMillis) {
        CompletableFuture<ForwardReply> future = new CompletableFuture<>();
        ForwardFrame frame = codec.seal(request, FrameCodec.toMember(peer));
        InvokeCallback callback = (result, error) -> {
            if (error != null) {
                future.completeExceptionally(
                        error instanceof InvokeTimeoutException
                                ? new WriteOutcomeUnknownException(
                                        "no answer from " + peer + " within " + timeoutMillis + " ms")
                                : new WriteOutcomeUnknownException(
                                        "request to " + peer + " failed: " + error.getMessage(), error));
                return;
            }
            try {
                ForwardReply reply =
                        codec.open((ForwardFrame) result, ForwardReply.class, FrameCodec.inReplyTo(request.nonce()));
                if (reply.status() == ForwardReply.UNAUTHORIZED) {
                    LOG.error("{} refused our frame: {}", peer, reply.message());
                }
                future.complete(reply);
            } catch (FrameCodec.UnauthorizedFrameException e) {
                LOG.error("reply from {} refused: {}", peer, e.getMessage());
                future.completeExceptionally(new StoreUnavailableException(
                        peer + " answered with a frame we cannot verify: " + e.getMessage()));
            } catch (RuntimeException e) {
                future.completeExceptionally(new StoreUnavailableException("bad reply from " + peer + ": " + e, e));
            }
        };
        try {
            rpc.invokeAsync(endpoint(peer), frame, callback, timeoutMillis);
        } catch (HandshakeRefusedException e) {
            future.completeExceptionally(new StoreUnavailableException(e.getMessage()));
        } catch (Exception e) {
            // not sent: the connection could not be made
            future.completeExceptionally(new NoLeaderException("cannot reach " + peer + ": " + e.getMessage()));
        }
        // Bolt drops an answer it cannot decode (one the allowlist refuses) without calling back,
        // its own timeout already cancelled: this deadline is what ends the wait then.
        return future.orTimeout(timeoutMillis + ANSWER_GRACE_MILLIS, TimeUnit.MILLISECONDS)
                .exceptionallyCompose(e -> CompletableFuture.failedFuture(
                        e instanceof TimeoutException
                                ? new WriteOutcomeUnknownException(
                                        "no usable answer from " + peer + " within " + timeoutMillis + " ms")
                                : e));
    }

    private static Endpoint endpoint(String address) {
        PeerId peer = PeerId.parsePeer(address);
        if (peer == null) {
            throw new IllegalArgumentException("bad address " + address);
        }
        return peer.getEndpoint();
    }

    @Override
    public void close() {
        rpc.shutdown();
    }
}
