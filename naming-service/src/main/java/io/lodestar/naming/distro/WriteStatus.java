package io.lodestar.naming.distro;

import io.lodestar.error.InvalidRequestException;
import io.lodestar.error.LimitExceededException;
import io.lodestar.kv.StoreUnavailableException;
import io.lodestar.naming.BeatResult;
import io.lodestar.naming.InstanceNotFoundException;

/**
 * The outcome an owner reports for a forwarded write: the first byte of its answer on {@link
 * Distro#WRITE}. The codes are wire format between members of different versions: never renumber
 * them. Each failure stands for one error type of the domain, which the forwarding node raises
 * again for its caller.
 */
enum WriteStatus {
    /** Applied; a beat found its instance. Followed by the beat interval (0 for other writes). */
    OK(0),
    /** A light beat for an instance the owner does not know. Followed by the beat interval. */
    BEAT_UNKNOWN(1),
    /** {@link InvalidRequestException}: followed by its field and message. */
    INVALID_REQUEST(2),
    /** {@link InstanceNotFoundException}: followed by the instance's address. */
    INSTANCE_NOT_FOUND(3),
    /**
     * Any other failure: followed by its message; raised as a retriable {@link
     * StoreUnavailableException}. Also what an unknown code means.
     */
    FAILED(4),
    /**
     * {@link LimitExceededException} (an ephemeral quota the owner counts): followed by the limit's
     * name and the message. A member of a build before it reads it as {@link #FAILED} with the
     * limit's name for a message, then fails to read the rest: the write fails there as malformed.
     */
    LIMIT_EXCEEDED(5);

    private final byte code;

    WriteStatus(int code) {
        this.code = (byte) code;
    }

    byte code() {
        return code;
    }

    /** The status of code {@code code}; {@link #FAILED} for a code this version does not know. */
    static WriteStatus of(byte code) {
        for (WriteStatus s : values()) {
            if (s.code == code) {
                return s;
            }
        }
        return FAILED;
    }

    /** The status of a write that succeeded with {@code result} (null for writes other than beats). */
    static WriteStatus applied(BeatResult result) {
        return result != null && result.status() == BeatResult.Status.UNKNOWN ? BEAT_UNKNOWN : OK;
    }

    /** The status that carries {@code cause} to the forwarding node. */
    static WriteStatus failed(Throwable cause) {
        if (cause instanceof InvalidRequestException) {
            return INVALID_REQUEST;
        }
        if (cause instanceof InstanceNotFoundException) {
            return INSTANCE_NOT_FOUND;
        }
        if (cause instanceof LimitExceededException) {
            return LIMIT_EXCEEDED;
        }
        return FAILED;
    }
}
