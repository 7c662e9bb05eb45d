package io.lodestar.kv.forward;

import com.alipay.remoting.DefaultCustomSerializer;
import com.alipay.remoting.InvokeContext;
import com.alipay.remoting.exception.DeserializationException;
import com.alipay.remoting.exception.SerializationException;
import com.alipay.remoting.rpc.RequestCommand;
import com.alipay.remoting.rpc.ResponseCommand;
import com.alipay.remoting.rpc.protocol.RpcRequestCommand;
import com.alipay.remoting.rpc.protocol.RpcResponseCommand;

/** Moves a {@link ForwardFrame}'s bytes in and out of bolt commands as they are. */
final class ForwardFrameSerializer extends DefaultCustomSerializer {
    static final ForwardFrameSerializer INSTANCE = new ForwardFrameSerializer();

    @Override
    public <T extends RequestCommand> boolean serializeContent(T request, InvokeContext ctx)
            throws SerializationException {
        RpcRequestCommand cmd = (RpcRequestCommand) request;
        cmd.setContent(((ForwardFrame) cmd.getRequestObject()).body());
        return true;
    }

    @Override
    public <T extends RequestCommand> boolean deserializeContent(T request) throws DeserializationException {
        RpcRequestCommand cmd = (RpcRequestCommand) request;
        cmd.setRequestObject(new ForwardFrame(cmd.getContent() == null ? new byte[0] : cmd.getContent()));
        return true;
    }

    @Override
    public <T extends ResponseCommand> boolean serializeContent(T response) throws SerializationException {
        RpcResponseCommand cmd = (RpcResponseCommand) response;
        cmd.setContent(((ForwardFrame) cmd.getResponseObject()).body());
        return true;
    }

    @Override
    public <T extends ResponseCommand> boolean deserializeContent(T response, InvokeContext ctx)
            throws DeserializationException {
        RpcResponseCommand cmd = (RpcResponseCommand) response;
        cmd.setResponseObject(new ForwardFrame(cmd.getContent() == null ? new byte[0] : cmd.getContent()));
        return true;
    }
}
