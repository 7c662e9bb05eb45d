package io.lodestar.kv.command;

import java.io.Serializable;

/**
 * The outcome of an applied {@link Command}: whether its guards held (and so its ops were applied)
 * and the store revision after it. A failed compare is an outcome, not an error: nothing was
 * written and {@code revision} is the store's revision at the time of the check. So is a put
 * refused by its {@link Cap} ({@link #overCap()}), which the store's write turns into an error.
 * Identical on every replica. A result encoded before caps existed decodes without one.
 */
public final class WriteResult implements Serializable {
    private static final long serialVersionUID = 1L;

    private final boolean succeeded;
    private final long revision;
    private final long index;
    private final Cap overCap;

    public WriteResult(boolean succeeded, long revision, long index) {
        this(succeeded, revision, index, null);
    }

    /** {@code overCap}: the cap that refused the command (then {@code succeeded} is false), or null. */
    public WriteResult(boolean succeeded, long revision, long index, Cap overCap) {
        this.succeeded = succeeded;
        this.revision = revision;
        this.index = index;
        this.overCap = overCap;
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

    /** The cap of the put that found its scope full, so that nothing was written; null otherwise. */
    public Cap overCap() {
        return overCap;
    }

    @Override
    public String toString() {
        return (succeeded ? "ok@" : overCap != null ? "over " + overCap + "@" : "compare-failed@") + revision;
    }
}
