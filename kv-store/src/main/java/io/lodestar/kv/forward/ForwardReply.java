package io.lodestar.kv.forward;

import io.lodestar.kv.command.WriteResult;
import java.io.Serializable;

/** The answer to a {@link ForwardRequest}. */
public final class ForwardReply implements Serializable {
    private static final long serialVersionUID = 1L;
    static final byte OK = 0;
    /** Not the leader: nothing was proposed; {@code leader} names the one this node knows, if any. */
    static final byte NOT_LEADER = 1;
    /** Proposed, but the outcome is unknown (leadership lost, timeout). */
    static final byte UNKNOWN = 2;
    /** Refused before proposing (overload, shutdown, bad request). */
    static final byte REFUSED = 3;

    static final byte UNAUTHORIZED = 4;

    private final byte status;
    private final WriteResult result;
    private final String message;
    private final String leader;
    private final String state;
    private final long term;
    private final byte[] payload;

    ForwardReply(byte status, WriteResult result, String message, String leader, String state, long term) {
        this(status, result, message, leader, state, term, null);
    }

    ForwardReply(
            byte status, WriteResult result, String message, String leader, String state, long term, byte[] payload) {
        this.status = status;
        this.result = result;
        this.message = message;
        this.leader = leader;
        this.state = state;
        this.term = term;
        this.payload = payload;
    }

    /** A peer message's answer. */
    static ForwardReply answer(byte[] payload) {
        return new ForwardReply(OK, null, null, null, null, 0, payload);
    }

    byte[] payload() {
        return payload;
    }

    byte status() {
        return status;
    }

    WriteResult result() {
        return result;
    }

    String message() {
        return message;
    }

    String leader() {
        return leader;
    }

    String state() {
        return state;
    }

    long term() {
        return term;
    }
}
