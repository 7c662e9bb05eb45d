package io.lodestar.kv.raft;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Fault injection for the crash-recovery tests: with {@code -Dlodestar.crashpoint=NAME} (or {@code NAME:N} for the
 * N-th pass) the JVM halts, as a kill -9 would stop it, when it reaches the named place. Tests use
 * it to prove recovery from a crash at exactly that point. Absent the property this is a no-op.
 */
final class CrashPoints {
    private static final Logger LOG = LoggerFactory.getLogger(CrashPoints.class);
    /** After the state machine's RocksDB write, before the proposers hear of it. */
    static final String AFTER_APPLY_WRITE = "after-apply-write";

    private static final String NAME;
    private static int remaining;

    static {
        String spec = System.getProperty("lodestar.crashpoint", "");
        int colon = spec.indexOf(':');
        NAME = colon < 0 ? spec : spec.substring(0, colon);
        remaining = colon < 0 ? 1 : Integer.parseInt(spec.substring(colon + 1));
    }

    private CrashPoints() {}

    static void reach(String name) {
        if (NAME.isEmpty() || !NAME.equals(name)) {
            return;
        }
        synchronized (CrashPoints.class) {
            if (--remaining == 0) {
                LOG.warn("crash point {} reached: halting", name);
                Runtime.getRuntime().halt(137);
            }
        }
    }
}
