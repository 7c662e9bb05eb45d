package io.lodestar.kv.raftport;

import com.alipay.sofa.jraft.rpc.Connection;
import com.alipay.sofa.jraft.rpc.RpcContext;
import com.alipay.sofa.jraft.rpc.RpcProcessor;
import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.Message;
import java.util.Optional;
import java.util.concurrent.Executor;

/**
 * Passes a request to its processor only when it came on an authenticated connection and, when
 * it names its sender (the {@code server_id} of JRaft's replication, vote, snapshot and
 * read-index requests), names the member that connection proved to be. Anything else closes the
 * connection unanswered: the sender learns nothing, and a member whose connection was replaced
 * reconnects and proves itself again.
 */
final class PeerGate<T> implements RpcProcessor<T> {
    private final RpcProcessor<T> processor;
    private final RefusalLog refusals;
    private volatile Optional<FieldDescriptor> senderField;

    @SuppressWarnings("unchecked")
    PeerGate(RpcProcessor<?> processor, RefusalLog refusals) {
        this.processor = (RpcProcessor<T>) processor;
        this.refusals = refusals;
    }

    @Override
    public void handleRequest(RpcContext ctx, T request) {
        Connection connection = ctx.getConnection();
        String peer = PeerState.authenticatedPeer(connection);
        String refusal;
        if (peer == null) {
            refusal = "a " + simpleName() + " on a connection that has not proved the cluster secret";
        } else {
            String claimed = sender(request);
            refusal = claimed == null || peer.equals(PeerCredentials.endpointOf(claimed))
                    ? null
                    : "a " + simpleName() + " from " + peer + " in the name of " + claimed;
        }
        if (refusal == null) {
            processor.handleRequest(ctx, request);
            return;
        }
        refusals.refused(ctx.getRemoteAddress(), refusal);
        if (connection != null) {
            connection.close();
        }
    }

    /** The sender a JRaft request names, or null when it names none. */
    private String sender(Object request) {
        if (!(request instanceof Message message)) {
            return null;
        }
        // one request type per processor: look the field up once, not on every request
        Optional<FieldDescriptor> field = senderField;
        if (field == null) {
            field = Optional.ofNullable(message.getDescriptorForType().findFieldByName("server_id"));
            senderField = field;
        }
        return field.filter(message::hasField)
                .map(f -> String.valueOf(message.getField(f)))
                .orElse(null);
    }

    private String simpleName() {
        String interest = processor.interest();
        return interest.substring(Math.max(interest.lastIndexOf('.'), interest.lastIndexOf('$')) + 1);
    }

    @Override
    public String interest() {
        return processor.interest();
    }

    @Override
    public Executor executor() {
        return processor.executor();
    }

    @Override
    public ExecutorSelector executorSelector() {
        return processor.executorSelector();
    }
}
