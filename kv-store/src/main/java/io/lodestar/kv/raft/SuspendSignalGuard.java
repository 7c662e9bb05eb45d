package io.lodestar.kv.raft;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import sun.misc.Signal;
import sun.misc.SignalHandler;

/**
 * Keeps SIGUSR2 with the JVM. When JRaft's {@code NodeImpl} class initialises, it installs a Java
 * handler on SIGUSR2 that writes {@code node_describe.log.*}, {@code node_metrics.log.*} and
 * {@code thread_pool_metrics.log.*} into the process's working directory. HotSpot on Linux suspends threads with that same signal (JFR's
 * execution sampler does, several times a second), so with JRaft's handler in place a profile of
 * the server has no execution samples and every sampling attempt starts a thread that drops those
 * files wherever the server was started. This loads {@code NodeImpl} once, early, and puts the
 * JVM's own handler back.
 */
final class SuspendSignalGuard {
    private static final Logger LOG = LoggerFactory.getLogger(SuspendSignalGuard.class);
    private static final String NODE_CLASS = "com.alipay.sofa.jraft.core.NodeImpl";
    private static boolean done;

    private SuspendSignalGuard() {}

    /** Idempotent; call before anything creates a JRaft node. */
    static synchronized void install() {
        if (done) {
            return;
        }
        done = true;
        Signal usr2;
        try {
            usr2 = new Signal("USR2");
        } catch (IllegalArgumentException e) {
            return; // a platform without SIGUSR2: JRaft installs nothing there either
        }
        // the only way to learn the JVM's handler is to replace it; it is put back at once
        SignalHandler jvm = Signal.handle(usr2, signal -> {});
        Signal.handle(usr2, jvm);
        if (jvm.getClass().getName().startsWith("com.alipay.sofa.jraft")) {
            LOG.warn("JRaft took SIGUSR2 before Lodestar could keep it for the JVM: a JFR profile of this process "
                    + "will have no execution samples");
            return;
        }
        try {
            Class.forName(NODE_CLASS, true, SuspendSignalGuard.class.getClassLoader());
        } catch (ClassNotFoundException e) {
            throw new IllegalStateException("JRaft is not on the class path", e);
        }
        Signal.handle(usr2, jvm);
    }
}
