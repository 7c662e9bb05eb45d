package io.lodestar.api.server;

import com.sun.management.HotSpotDiagnosticMXBean;
import com.sun.management.VMOption;
import java.lang.management.ManagementFactory;
import java.util.Arrays;
import java.util.Optional;
import javax.management.JMException;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Hands the C heap's free memory back to the OS ({@code malloc_trim}), on a timer the server runs.
 *
 * <p>Why: RocksDB's memtables and block cache, the JIT compilers and JRaft's native buffers all
 * allocate through glibc, whose per-thread arenas keep freed memory resident. After a burst of load
 * that is some 50 MiB of a server's RSS that nothing uses (measured with {@code jcmd <pid>
 * System.trim_native_heap}). The JDK can trim on its own ({@code -XX:TrimNativeHeapInterval}), but
 * that flag is not manageable, so a server started with only {@code -Xmx} would never trim; this
 * calls the same diagnostic command from inside the process instead. An operator who sets the flag
 * gets the JDK's trimmer and this stays off.
 */
final class NativeHeapTrim {
    private static final Logger LOG = LoggerFactory.getLogger(NativeHeapTrim.class);
    private static final String OPERATION = "systemTrimNativeHeap"; // jcmd's System.trim_native_heap
    private static final String FLAG = "TrimNativeHeapInterval";

    private final MBeanServer server;
    private final ObjectName diagnostics;

    private NativeHeapTrim(MBeanServer server, ObjectName diagnostics) {
        this.server = server;
        this.diagnostics = diagnostics;
    }

    /**
     * The trimmer, or empty where this JVM has no such command (a JDK before 17.0.9, a C library
     * other than glibc) or its operator already made the JVM trim by itself.
     */
    static Optional<NativeHeapTrim> ifAvailable() {
        try {
            if (!"Linux".equals(System.getProperty("os.name")) || operatorSetTheFlag()) {
                return Optional.empty();
            }
            MBeanServer server = ManagementFactory.getPlatformMBeanServer();
            ObjectName name = new ObjectName("com.sun.management:type=DiagnosticCommand");
            boolean present = Arrays.stream(server.getMBeanInfo(name).getOperations())
                    .anyMatch(op -> op.getName().equals(OPERATION));
            return present ? Optional.of(new NativeHeapTrim(server, name)) : Optional.empty();
        } catch (JMException | RuntimeException e) {
            LOG.debug("native heap trimming unavailable: {}", e.toString());
            return Optional.empty();
        }
    }

    private static boolean operatorSetTheFlag() {
        try {
            HotSpotDiagnosticMXBean vm = ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class);
            return vm.getVMOption(FLAG).getOrigin() != VMOption.Origin.DEFAULT;
        } catch (IllegalArgumentException noSuchFlag) {
            return false;
        }
    }

    /**
     * Trims once and returns the JVM's one-line report ({@code "Trim native heap: RSS+Swap:
     * 232M->185M (-48208K)"}). Memory only, never correctness: a failure is logged and ignored.
     */
    String trim() {
        try {
            Object report = server.invoke(diagnostics, OPERATION, new Object[] {null},
                    new String[] {String[].class.getName()});
            return String.valueOf(report).strip();
        } catch (JMException | RuntimeException e) {
            LOG.debug("native heap trim failed: {}", e.toString());
            return "";
        }
    }
}
