package io.lodestar.naming.dns;

import java.io.IOException;
import java.util.Arrays;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.xbill.DNS.Flags;
import org.xbill.DNS.Header;
import org.xbill.DNS.Message;
import org.xbill.DNS.OPTRecord;
import org.xbill.DNS.Rcode;

/**
 * Turns one request packet into one response packet, sized for its transport.
 *
 * <p>A packet shorter than a DNS header, or one with the QR bit set (a response: answering it
 * could start two servers echoing each other forever), gets no answer ({@code null}). A packet
 * that does not parse gets FORMERR with its ID. A UDP answer is limited to 512 bytes, or to the
 * query's EDNS size capped at {@link DnsServerSettings#maxUdpPayload()}; over TCP to 65535. An
 * answer that does not fit loses whole record sets from the end and has TC set (dnsjava's
 * {@link Message#toWire(int)}), so the client asks again over TCP.
 *
 * <p>Thread-safe: stateless apart from the responder, which is too.
 */
final class PacketHandler {
    private static final Logger LOG = LoggerFactory.getLogger(PacketHandler.class);
    static final int TCP_MAX = 65_535;

    private final DnsResponder responder;
    private final int maxUdpPayload;

    PacketHandler(DnsResponder responder, int maxUdpPayload) {
        this.responder = responder;
        this.maxUdpPayload = maxUdpPayload;
    }

    /** The response to the request in {@code packet[0, length)}, or null to send nothing. */
    byte[] respond(byte[] packet, int length, boolean udp) {
        if (length < Header.LENGTH) {
            return null;
        }
        byte[] request = Arrays.copyOf(packet, length);
        Header header;
        try {
            header = new Header(request);
        } catch (IOException e) {
            return null; // cannot happen with 12 bytes; nothing to answer to otherwise
        }
        if (header.getFlag(Flags.QR)) {
            return null;
        }
        Message query;
        try {
            query = new Message(request);
        } catch (IOException | RuntimeException e) {
            LOG.debug("malformed DNS query (id {}): {}", header.getID(), e.toString());
            return formErr(header);
        }
        Message response = responder.answer(query);
        return response.toWire(udp ? udpLimit(query) : TCP_MAX);
    }

    private int udpLimit(Message query) {
        OPTRecord opt = query.getOPT();
        if (opt == null) {
            return DnsServerSettings.CLASSIC_UDP_PAYLOAD;
        }
        return Math.max(DnsServerSettings.CLASSIC_UDP_PAYLOAD, Math.min(opt.getPayloadSize(), maxUdpPayload));
    }

    private static byte[] formErr(Header request) {
        Message response = new Message(request.getID());
        response.getHeader().setFlag(Flags.QR);
        response.getHeader().setOpcode(request.getOpcode());
        response.getHeader().setRcode(Rcode.FORMERR);
        return response.toWire(DnsServerSettings.CLASSIC_UDP_PAYLOAD);
    }
}
