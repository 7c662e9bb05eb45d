package io.lodestar.kv.raftport;

import io.netty.buffer.ByteBuf;

/**
 * The length of a bolt frame, read from its first bytes, for the two protocols bolt 1.6 speaks
 * (1, and 2 with its optional CRC). The layouts are bolt's {@code RpcCommandDecoder} and {@code
 * RpcCommandDecoderV2}: a fixed header whose last fields are the class, header and content
 * lengths, then those three parts.
 */
final class BoltFrameLength {
    /** The longest fixed header: what must have arrived before a length is known at the latest. */
    static final int MAX_HEADER = 24;
    /** Not enough bytes yet. */
    static final long UNKNOWN = -1;

    private static final byte PROTOCOL_1 = 1;
    private static final byte PROTOCOL_2 = 2;
    private static final byte VERSION_2 = 2;
    private static final byte RESPONSE = 0;
    private static final byte REQUEST = 1;
    private static final byte REQUEST_ONEWAY = 2;
    private static final int CRC_BYTES = 4;

    private BoltFrameLength() {}

    /**
     * The whole frame's length in bytes, header included, of the frame whose first {@code
     * available} bytes are at {@code header}'s reader index; {@link #UNKNOWN} until enough of the
     * header has arrived.
     *
     * @throws IllegalArgumentException for bytes bolt would refuse to decode: an unknown protocol or
     *     command type, or a negative length
     */
    static long of(ByteBuf header, int available) {
        int at = header.readerIndex();
        if (available < 3) {
            return UNKNOWN;
        }
        byte protocol = header.getByte(at);
        int typeAt;
        if (protocol == PROTOCOL_1) {
            typeAt = 1;
        } else if (protocol == PROTOCOL_2) {
            typeAt = 2;
        } else {
            throw new IllegalArgumentException("not a bolt frame: protocol " + protocol);
        }
        byte type = header.getByte(at + typeAt);
        boolean request = type == REQUEST || type == REQUEST_ONEWAY;
        if (!request && type != RESPONSE) {
            throw new IllegalArgumentException("not a bolt frame: command type " + type);
        }
        // a request carries a 4-byte timeout where a response carries a 2-byte status
        int headerLength = (protocol == PROTOCOL_1 ? 20 : 22) + (request ? 2 : 0);
        if (available < headerLength) {
            return UNKNOWN;
        }
        int lengthsAt = at + headerLength - 8;
        short classLength = header.getShort(lengthsAt);
        short headerFieldsLength = header.getShort(lengthsAt + 2);
        int contentLength = header.getInt(lengthsAt + 4);
        if (classLength < 0 || headerFieldsLength < 0 || contentLength < 0) {
            throw new IllegalArgumentException("not a bolt frame: a negative length");
        }
        long length = (long) headerLength + classLength + headerFieldsLength + contentLength;
        boolean crc =
                protocol == PROTOCOL_2 && header.getByte(at + 1) == VERSION_2 && (header.getByte(at + 11) & 1) != 0;
        return crc ? length + CRC_BYTES : length;
    }
}
