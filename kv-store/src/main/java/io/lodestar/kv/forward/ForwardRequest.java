package io.lodestar.kv.forward;

import io.lodestar.kv.command.Command;
import java.io.Serializable;

/** A request from one node to another: propose a command, or report your Raft state. */
public final class ForwardRequest implements Serializable {
    private static final long serialVersionUID = 1L;
    static final byte WRITE = 1;
    static final byte STATUS = 2;

    private final byte kind;
    private final String from;
    private final long sentAtMillis;
    private final long nonce;
    private final Command command;

    ForwardRequest(byte kind, String from, long sentAtMillis, long nonce, Command command) {
        this.kind = kind;
        this.from = from;
        this.sentAtMillis = sentAtMillis;
        this.nonce = nonce;
        this.command = command;
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
