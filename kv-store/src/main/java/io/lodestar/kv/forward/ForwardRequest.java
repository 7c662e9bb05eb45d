package io.lodestar.kv.forward;

import io.lodestar.kv.command.Command;
import java.io.Serializable;

/**
 * A request from one node to another: propose a command, report your Raft state, or deliver a
 * message of a topic to the handler a service registered for it (see {@link
 * io.lodestar.kv.cluster.PeerChannel}).
 */
public final class ForwardRequest implements Serializable {
    private static final long serialVersionUID = 1L;
    static final byte WRITE = 1;
    static final byte STATUS = 2;
    static final byte MESSAGE = 3;

    private final byte kind;
    private final String from;
    private final long sentAtMillis;
    private final long nonce;
    private final Command command;
    private final String topic;
    private final byte[] payload;

    ForwardRequest(byte kind, String from, long sentAtMillis, long nonce, Command command) {
        this(kind, from, sentAtMillis, nonce, command, null, null);
    }

    ForwardRequest(
            byte kind, String from, long sentAtMillis, long nonce, Command command, String topic, byte[] payload) {
        this.kind = kind;
        this.from = from;
        this.sentAtMillis = sentAtMillis;
        this.nonce = nonce;
        this.command = command;
        this.topic = topic;
        this.payload = payload;
    }

    String topic() {
        return topic;
    }

    byte[] payload() {
        return payload;
    }

    /** Random per request: with the timestamp, lets the receiver refuse a replayed frame. */
    long nonce() {
        return nonce;
    }

    byte kind() {
        return kind;
    }

    String from() {
        return from;
    }

    long sentAtMillis() {
        return sentAtMillis;
    }

    Command command() {
        return command;
    }
}
