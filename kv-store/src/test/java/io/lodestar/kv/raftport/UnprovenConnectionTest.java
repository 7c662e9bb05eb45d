package io.lodestar.kv.raftport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.alipay.remoting.CommandCode;
import com.alipay.remoting.Connection;
import com.alipay.remoting.ProtocolCode;
import com.alipay.remoting.ProtocolManager;
import com.alipay.remoting.ResponseStatus;
import com.alipay.remoting.config.switches.ProtocolSwitch;
import com.alipay.remoting.rpc.RpcCodec;
import com.alipay.remoting.rpc.RpcCommand;
import com.alipay.remoting.rpc.RpcCommandType;
import com.alipay.remoting.rpc.protocol.RpcCommandCode;
import com.alipay.remoting.rpc.protocol.RpcProtocolManager;
import com.alipay.remoting.rpc.protocol.RpcRequestCommand;
import com.alipay.remoting.rpc.protocol.RpcResponseCommand;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Frame lengths as bolt's own encoders write them, and a stranger's stream cut at the first frame
 * past the bound however the bytes are split.
 */
class UnprovenConnectionTest {
    private final Random random = new Random(42);

    /** Every layout bolt 1.6 writes: protocols 1 and 2, version 1 and 2, with and without CRC, both directions. */
    private List<ByteBuf> boltFrames(int count, int maxContent) {
        if (ProtocolManager.getProtocol(ProtocolCode.fromBytes((byte) 2)) == null) {
            RpcProtocolManager.initProtocols();
        }
        List<ByteBuf> frames = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            byte protocol = (byte) (1 + random.nextInt(2));
            byte version = protocol == 2 ? (byte) (1 + random.nextInt(2)) : 1;
            EmbeddedChannel encoder = new EmbeddedChannel(new RpcCodec().newEncoder());
            encoder.attr(Connection.PROTOCOL).set(ProtocolCode.fromBytes(protocol));
            encoder.attr(Connection.VERSION).set(version);
            RpcCommand command;
            if (random.nextBoolean()) {
                RpcRequestCommand request = new RpcRequestCommand();
                request.setType(random.nextBoolean() ? RpcCommandType.REQUEST : RpcCommandType.REQUEST_ONEWAY);
                request.setTimeout(3000);
                command = request;
            } else {
                RpcResponseCommand response = new RpcResponseCommand();
                response.setType(RpcCommandType.RESPONSE);
                response.setResponseStatus(ResponseStatus.SUCCESS);
                command = response;
            }
            command.setCmdCode(
                    random.nextInt(5) == 0 ? (CommandCode) RpcCommandCode.RPC_RESPONSE : RpcCommandCode.RPC_REQUEST);
            command.setId(i);
            command.setProtocolSwitch(
                    random.nextBoolean()
                            ? ProtocolSwitch.create(new int[] {ProtocolSwitch.CRC_SWITCH_INDEX})
                            : ProtocolSwitch.create(new int[0]));
            command.setClazz(random.nextBoolean() ? bytes(random.nextInt(60)) : null);
            command.setHeader(random.nextBoolean() ? bytes(random.nextInt(100)) : null);
            command.setContent(bytes(random.nextInt(maxContent)));
            assertTrue(encoder.writeOutbound(command));
            frames.add(encoder.readOutbound());
        }
        return frames;
    }

    private byte[] bytes(int n) {
        byte[] b = new byte[n];
        random.nextBytes(b);
        return b;
    }

    @Test
    void theLengthOfEveryFrameBoltWritesIsReadFromItsHeader() {
        for (ByteBuf frame : boltFrames(500, 3000)) {
            int length = frame.readableBytes();
            assertEquals(length, BoltFrameLength.of(frame, length), "a frame as bolt encodes it");
            assertEquals(BoltFrameLength.UNKNOWN, BoltFrameLength.of(frame, 2));
            frame.release();
        }
    }

    @Test
    void smallFramesPassWhateverTheirSplitAndALongOneClosesTheConnection() {
        AtomicInteger slotGivenBack = new AtomicInteger();
        EmbeddedChannel channel = new EmbeddedChannel(
                new UnprovenConnection(slotGivenBack::incrementAndGet, Duration.ofMinutes(1), new RefusalLog()));
        ByteBuf stream = Unpooled.buffer();
        for (ByteBuf frame : boltFrames(200, 2000)) {
            stream.writeBytes(frame);
            frame.release();
        }
        int total = stream.readableBytes();
        int passed = 0;
        while (stream.isReadable()) {
            int piece = Math.min(stream.readableBytes(), 1 + random.nextInt(random.nextBoolean() ? 7 : 900));
            channel.writeInbound(stream.readRetainedSlice(piece));
            for (ByteBuf out; (out = channel.readInbound()) != null; ) {
                passed += out.readableBytes();
                out.release();
            }
        }
        stream.release();
        assertEquals(total, passed, "every byte of small frames reaches bolt's decoder");
        assertTrue(channel.isActive());

        ByteBuf oversized = boltFrames(1, 1).get(0);
        oversized.setInt(oversized.readerIndex() + lengthField(oversized), UnprovenConnection.MAX_FRAME);
        channel.writeInbound(oversized.readRetainedSlice(12)); // a header whose lengths are still to come
        channel.writeInbound(oversized);
        assertFalse(channel.isActive(), "a frame past the bound closes the connection");
        for (ByteBuf out; (out = channel.readInbound()) != null; ) {
            out.release();
        }
        assertEquals(1, slotGivenBack.get(), "its slot is given back");
    }

    /** Where the content length sits in a frame's header. */
    private static int lengthField(ByteBuf frame) {
        int at = frame.readerIndex();
        boolean request = frame.getByte(at + (frame.getByte(at) == 2 ? 2 : 1)) != RpcCommandType.RESPONSE;
        return (frame.getByte(at) == 1 ? 20 : 22) + (request ? 2 : 0) - 4;
    }
}
