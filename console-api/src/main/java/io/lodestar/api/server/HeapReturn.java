package io.lodestar.api.server;

import com.sun.management.HotSpotDiagnosticMXBean;
import com.sun.management.VMOption;
import java.lang.management.ManagementFactory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Lets G1 give unused heap back to the OS once load drops (JEP 346): a periodic collection while the
 * server is idle, and a heap that shrinks to 30 % free. Without it a server started with only
 * {@code -Xmx} keeps the whole heap a burst once needed resident for good. Flags an operator set on
 * the command line are left alone; the flags are manageable, so setting them at run time is supported.
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
            setIfDefault(vm, "G1PeriodicGCInterval", "15000");
            setIfDefault(vm, "MinHeapFreeRatio", "10");
            setIfDefault(vm, "MaxHeapFreeRatio", "30");
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
