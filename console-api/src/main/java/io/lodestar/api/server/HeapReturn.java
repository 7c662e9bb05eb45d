package io.lodestar.api.server;

import com.sun.management.HotSpotDiagnosticMXBean;
import com.sun.management.VMOption;
import java.lang.management.ManagementFactory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Lets G1 give unused heap back to the OS once load drops (JEP 346): a periodic collection after a
 * minute without one, whose remark shrinks the heap to G1's default 70 % free. Without it a server
 * started with only {@code -Xmx} keeps the whole heap a burst once needed resident for good. The flag
 * an operator set on the command line is left alone; it is manageable, so setting it at run time is
 * supported.
 *
 * <p>Not tighter, and not more often: shrinking to 30 % free left a heap of 30 MiB with 15-18 MiB
 * live, so every young collection started a concurrent cycle and the next burst of work met a storm
 * of collections (a dozen pauses within 0.3 s, then a jump back to 200 MiB), and a period of 15 s put
 * a remark pause into every 15 s of a lightly loaded server: both showed up as 3-12 ms outliers in the
 * notify latency of publishes made at 20 ms gaps.
 */
final class HeapReturn {
    private static final Logger LOG = LoggerFactory.getLogger(HeapReturn.class);

    private HeapReturn() {}

    static void enable() {
        try {
            HotSpotDiagnosticMXBean vm = ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class);
            if (!"true".equals(vm.getVMOption("UseG1GC").getValue())) {
                return;
            }
            setIfDefault(vm, "G1PeriodicGCInterval", "60000");
        } catch (RuntimeException e) {
            LOG.debug("cannot tune heap return: {}", e.toString()); // memory use only, not correctness
        }
    }

    private static void setIfDefault(HotSpotDiagnosticMXBean vm, String flag, String value) {
        if (vm.getVMOption(flag).getOrigin() == VMOption.Origin.DEFAULT) {
            vm.setVMOption(flag, value);
        }
    }
}
