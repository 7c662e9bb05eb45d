package io.lodestar.kv.raft;

import com.alipay.sofa.jraft.util.SPI;
import com.alipay.sofa.jraft.util.timer.DefaultRaftTimerFactory;
import com.alipay.sofa.jraft.util.timer.DefaultTimer;
import com.alipay.sofa.jraft.util.timer.Timer;

/**
 * JRaft's timers (election, vote, step-down, snapshot, read-index timeouts) on a scheduled
 * executor that sleeps until the next deadline. JRaft's default is a hashed wheel ticking every
 * millisecond per timer: a thread per timer waking constantly, a steady cost on an idle node and
 * many context switches under load, to serve a handful of timeouts per second. The wheel pays off with thousands of Raft groups; a node here runs one.
 * JRaft picks the factory with the highest {@link SPI} priority listed in
 * {@code META-INF/services}; JRaft's own {@link DefaultTimer} does the scheduling.
 */
@SPI(priority = 100)
public final class SleepingTimerFactory extends DefaultRaftTimerFactory {
    @Override
    public Timer createTimer(String name) {
        return new DefaultTimer(1, name);
    }
}
