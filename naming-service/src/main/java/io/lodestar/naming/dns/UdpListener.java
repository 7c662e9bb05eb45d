package io.lodestar.naming.dns;

import java.io.IOException;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Receives DNS queries on one UDP socket and sends each answer back to its sender, on the thread
 * that received it. Several threads may run it on the same socket.
 *
 * <p>No packet ends the loop: a bad one is answered FORMERR or dropped, an error while answering
 * is logged. It ends when the socket is closed. A source network past its answer rate gets no
 * answer.
 */
final class UdpListener implements Runnable {
    private static final Logger LOG = LoggerFactory.getLogger(UdpListener.class);
    /** Queries are small; anything longer is cut here and then fails to parse (FORMERR). */
    private static final int RECEIVE_BUFFER = 4096;

    private final DatagramSocket socket;
    private final PacketHandler handler;
    private final UdpAnswerRate rate;
    /** Told of each query left unanswered by the rate limit. */
    private final Runnable rateLimited;

    UdpListener(DatagramSocket socket, PacketHandler handler, UdpAnswerRate rate, Runnable rateLimited) {
        this.socket = socket;
        this.handler = handler;
        this.rate = rate;
        this.rateLimited = rateLimited;
    }

    @Override
    public void run() {
        byte[] buffer = new byte[RECEIVE_BUFFER];
        DatagramPacket packet = new DatagramPacket(buffer, buffer.length);
        while (!socket.isClosed()) {
            try {
                packet.setLength(buffer.length);
                socket.receive(packet);
                if (!rate.allow(packet.getAddress())) {
                    rateLimited.run(); // dropped unanswered: a resolver asks again, or over TCP
                    continue;
                }
                byte[] answer = handler.respond(buffer, packet.getLength(), true);
                if (answer != null && answer.length > 0) {
                    socket.send(new DatagramPacket(answer, answer.length, packet.getSocketAddress()));
                }
            } catch (IOException e) {
                if (!socket.isClosed()) {
                    LOG.debug("DNS UDP exchange failed: {}", e.toString());
                }
            } catch (RuntimeException e) {
                LOG.warn("answering a DNS UDP query failed", e);
            }
        }
    }
}
