package io.lodestar.kv.command;

import java.io.Serializable;

/**
 * The outcome of an applied {@link Command}: whether its guards held (and so its ops were applied)
 * and the store revision after it. A failed compare is an outcome, not an error: nothing was
 * written and {@code revision} is the store's revision at the time of the check.
 * Identical on every replica.
 */
public final class WriteResult implements Serializable {
    private static final long serialVersionUID = 1L;

    private final boolean succeeded;
    private final long revision;
    private final long index;

    public WriteResult(boolean succeeded, long revision, long index) {
        this.succeeded = succeeded;
        this.revision = revision;
        this.index = index;
    }

    public boolean succeeded() {
        return succeeded;
    }

    public long revision() {
        return revision;
    }

    /** The Raft log index of the command's entry. */
    public long index() {
        return index;
    }

    @Override
    public String toString() {
        return (succeeded ? "ok@" : "compare-failed@") + revision;
    }
}
