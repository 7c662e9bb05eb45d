package io.lodestar.kv.forward;

import com.alipay.remoting.CustomSerializerManager;
import com.alipay.sofa.jraft.rpc.RpcContext;
import com.alipay.sofa.jraft.rpc.RpcProcessor;
import com.alipay.sofa.jraft.rpc.RpcServer;
import io.lodestar.error.Failures;
import io.lodestar.kv.KvException;
import io.lodestar.kv.NotLeaderException;
import io.lodestar.kv.cluster.PeerMessageHandler;
import io.lodestar.kv.command.WriteResult;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Serves the node-to-node channel on the Raft RPC server: proposals forwarded by followers, and
 * status queries. Every frame must carry a MAC under the cluster secret and be recent.
 */
public final class ForwardServer implements RpcProcessor<ForwardFrame> {
    private static final Logger LOG = LoggerFactory.getLogger(ForwardServer.class);
    static final long MAX_CLOCK_SKEW_MILLIS = 60_000;

    /** What an unverifiable frame gets: no MAC, no plaintext, nothing to test a guessed secret against. */
    private static final ForwardFrame NOTHING = new ForwardFrame(new byte[0]);

    private final FrameCodec codec;
    private final byte[] context;
    private final LeaderProposer local;
    private final ReplayGuard replays = new ReplayGuard(2 * MAX_CLOCK_SKEW_MILLIS);
    private final Map<String, PeerMessageHandler> handlers;

    private ForwardServer(
            FrameCodec codec, String self, LeaderProposer local, Map<String, PeerMessageHandler> handlers) {
        this.codec = codec;
        this.context = FrameCodec.toMember(self);
        this.local = local;
        this.handlers = handlers;
    }

    /**
     * Registers the channel's processor (and its frame serializer) on {@code rpcServer}; peer
     * messages go to the handler registered in {@code handlers} under their topic (looked up per message).
     */
    public static void register(
            RpcServer rpcServer,
            byte[] clusterSecret,
            String self,
            LeaderProposer local,
            Map<String, PeerMessageHandler> handlers) {
        registerSerializer();
        rpcServer.registerProcessor(new ForwardServer(new FrameCodec(clusterSecret), self, local, handlers));
    }

    static void registerSerializer() {
        if (CustomSerializerManager.getCustomSerializer(ForwardFrame.class.getName()) == null) {
            CustomSerializerManager.registerCustomSerializer(
                    ForwardFrame.class.getName(), ForwardFrameSerializer.INSTANCE);
        }
    }

    @Override
    public String interest() {
        return ForwardFrame.class.getName();
    }

    @Override
    public void handleRequest(RpcContext ctx, ForwardFrame frame) {
        ForwardRequest request;
        try {
            request = codec.open(frame, ForwardRequest.class, context);
        } catch (FrameCodec.UnauthorizedFrameException e) {
            LOG.warn("refused a node-to-node frame from {}: {}", ctx.getRemoteAddress(), e.getMessage());
            ctx.sendResponse(NOTHING);
            return;
        }
        byte[] replyContext = FrameCodec.inReplyTo(request.nonce());
        long skew = Math.abs(System.currentTimeMillis() - request.sentAtMillis());
        String refusal = skew > MAX_CLOCK_SKEW_MILLIS
                ? "frame is " + skew + " ms old or early"
                : !replays.firstSighting(request.nonce(), request.sentAtMillis())
                        ? "frame replayed (nonce seen before)"
                        : null;
        if (refusal != null) { // authentic, so its sender knows the secret: it may hear why
            LOG.warn("refused a node-to-node frame from {}: {}", ctx.getRemoteAddress(), refusal);
            ctx.sendResponse(codec.seal(reply(ForwardReply.UNAUTHORIZED, null, refusal), replyContext));
            return;
        }
        if (request.kind() == ForwardRequest.STATUS) {
            LeaderProposer.NodeStatus s = local.status();
            ctx.sendResponse(codec.seal(
                    new ForwardReply(ForwardReply.OK, null, null, s.leader(), s.state(), s.term()), replyContext));
            return;
        }
        if (request.kind() == ForwardRequest.MESSAGE) {
            deliver(ctx, request, replyContext);
            return;
        }
        local.proposeAsLeader(request.command()).whenComplete((result, error) -> {
            ForwardReply reply = error == null ? reply(ForwardReply.OK, result, null) : replyFor(Failures.cause(error));
            ctx.sendResponse(codec.seal(reply, replyContext));
        });
    }

    private void deliver(RpcContext ctx, ForwardRequest request, byte[] replyContext) {
        PeerMessageHandler handler = request.topic() == null ? null : handlers.get(request.topic());
        if (handler == null) {
            ctx.sendResponse(codec.seal(
                    reply(ForwardReply.REFUSED, null, "no handler for topic " + request.topic()), replyContext));
            return;
        }
        CompletableFuture<byte[]> answer;
        try {
            answer = handler.handle(request.from(), request.payload() == null ? new byte[0] : request.payload());
        } catch (RuntimeException e) {
            answer = CompletableFuture.failedFuture(e);
        }
        answer.whenComplete((payload, error) -> ctx.sendResponse(codec.seal(
                error == null
                        ? ForwardReply.answer(payload)
                        : reply(ForwardReply.REFUSED, null, request.topic() + ": " + rootMessage(error)),
                replyContext)));
    }

    private static String rootMessage(Throwable error) {
        Throwable t = Failures.cause(error);
        return String.valueOf(t.getMessage());
    }

    private ForwardReply replyFor(Throwable error) {
        if (error instanceof NotLeaderException nle) {
            return new ForwardReply(ForwardReply.NOT_LEADER, null, nle.getMessage(), nle.leader(), null, 0);
        }
        if (error instanceof KvException kv && kv.outcomeUnknown()) {
            return reply(ForwardReply.UNKNOWN, null, kv.getMessage());
        }
        if (error instanceof KvException kv) {
            return reply(ForwardReply.REFUSED, null, kv.getMessage());
        }
        LOG.error("forwarded proposal failed unexpectedly", error);
        return reply(ForwardReply.UNKNOWN, null, String.valueOf(error));
    }

    private static ForwardReply reply(byte status, WriteResult result, String message) {
        return new ForwardReply(status, result, message, null, null, 0);
    }
}
