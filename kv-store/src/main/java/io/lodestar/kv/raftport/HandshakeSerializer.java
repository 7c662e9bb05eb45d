package io.lodestar.kv.raftport;

import com.alipay.remoting.CustomSerializerManager;
import com.alipay.remoting.DefaultCustomSerializer;
import com.alipay.remoting.InvokeContext;
import com.alipay.remoting.rpc.RequestCommand;
import com.alipay.remoting.rpc.ResponseCommand;
import com.alipay.remoting.rpc.protocol.RpcRequestCommand;
import com.alipay.remoting.rpc.protocol.RpcResponseCommand;

/** Moves a {@link HandshakeMessage} in and out of bolt commands in its own layout. */
final class HandshakeSerializer extends DefaultCustomSerializer {
    private static final HandshakeSerializer INSTANCE = new HandshakeSerializer();

    /** Registers the serializer with bolt (process-wide; idempotent). */
    static void register() {
        if (CustomSerializerManager.getCustomSerializer(HandshakeMessage.class.getName()) == null) {
            CustomSerializerManager.registerCustomSerializer(HandshakeMessage.class.getName(), INSTANCE);
        }
    }

    @Override
    public <T extends RequestCommand> boolean serializeContent(T request, InvokeContext ctx) {
        RpcRequestCommand cmd = (RpcRequestCommand) request;
        cmd.setContent(((HandshakeMessage) cmd.getRequestObject()).encode());
        return true;
    }

    @Override
    public <T extends RequestCommand> boolean deserializeContent(T request) {
        RpcRequestCommand cmd = (RpcRequestCommand) request;
        cmd.setRequestObject(HandshakeMessage.decode(cmd.getContent()));
        return true;
    }

    @Override
    public <T extends ResponseCommand> boolean serializeContent(T response) {
        RpcResponseCommand cmd = (RpcResponseCommand) response;
        cmd.setContent(((HandshakeMessage) cmd.getResponseObject()).encode());
        return true;
    }

    @Override
    public <T extends ResponseCommand> boolean deserializeContent(T response, InvokeContext ctx) {
        RpcResponseCommand cmd = (RpcResponseCommand) response;
        cmd.setResponseObject(HandshakeMessage.decode(cmd.getContent()));
        return true;
    }
}
