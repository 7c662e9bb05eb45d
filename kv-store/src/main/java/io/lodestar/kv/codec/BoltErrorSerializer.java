package io.lodestar.kv.codec;

import com.alipay.remoting.rpc.exception.RpcServerException;
import com.alipay.remoting.serialization.Serializer;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Set;

/**
 * Bolt's Hessian 2 serializer, admitting only what bolt itself sends with it: the exception in an
 * error response. Thread-safe.
 *
 * <p>Bolt decodes a response's content with the serializer in the slot the responder names in its
 * header, unless the class name the responder also names has a custom serializer. Lodestar's own
 * traffic never gets here (JRaft's protobuf messages and the forward channel's frames have custom
 * serializers, and a request for any other class is refused before its content is read), so this
 * slot only ever carries the {@link RpcServerException} bolt builds for a request it could not
 * serve: no processor, a processor that threw, a request or response it could not (de)serialize.
 * Anything else a peer puts there is refused before its class is loaded.
 *
 * <p>Encoding is held to the same list. A server encodes its own {@code RpcServerException} with
 * this slot, and that still works; any other object reaching it would be a processor answering
 * without a custom serializer, which no Lodestar peer would decode anyway. Refusing it at the
 * source turns that into an error bolt reports to the caller (a server-side serialization failure,
 * itself carried by an {@code RpcServerException}), and this node never emits an arbitrary object
 * graph for a less careful decoder to instantiate.
 */
final class BoltErrorSerializer implements Serializer {
    static final BoltErrorSerializer INSTANCE = new BoltErrorSerializer();

    private final HessianCodec codec = new HessianCodec(Set.of(
            // what bolt's RpcCommandFactory puts in every error response it builds
            RpcServerException.class,
            // its stack trace, copied from the failure on the server
            StackTraceElement.class,
            // Throwable's suppressed list when it has none, as Hessian writes the field as it is
            // (java.lang opened to it, as Lodestar's jar and tests do)
            Collections.emptyList().getClass(),
            // the same list as sofa-hessian writes it when java.lang is not opened to it
            Collections.unmodifiableList(new ArrayList<>()).getClass()));

    private BoltErrorSerializer() {}

    @Override
    public byte[] serialize(Object obj) throws com.alipay.remoting.exception.CodecException {
        try {
            return codec.encode(obj);
        } catch (CodecException e) {
            throw new com.alipay.remoting.exception.CodecException(e.getMessage(), e);
        }
    }

    @Override
    @SuppressWarnings({"unchecked", "TypeParameterUnusedInFormals"}) // bolt's signature, not ours
    public <T> T deserialize(byte[] data, String classOfT) throws com.alipay.remoting.exception.CodecException {
        try {
            return (T) codec.decode(data, Object.class);
        } catch (CodecException e) {
            throw new com.alipay.remoting.exception.CodecException(e.getMessage(), e);
        }
    }
}
