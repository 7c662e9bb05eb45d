package io.lodestar.naming.dns;

import java.net.Inet4Address;
import java.net.InetAddress;
import java.util.Arrays;

/**
 * Response-rate limiting for DNS over UDP: at most {@code perSecond} answers a second (with a burst
 * of as many) to one source network, an IPv4 /24 or an IPv6 /56, as BIND's RRL counts them. A UDP
 * query's source is not proven, so without this the node answers whoever a flood names, as a
 * reflector of larger answers than it was sent. Over TCP, where the source is proven, there is no
 * such limit.
 *
 * <p>The buckets are a fixed table indexed by a hash of the network, so the memory stays the same
 * whatever the number of sources; networks that share a bucket share its rate. Thread-safe.
 */
final class UdpAnswerRate {
    private static final int BUCKETS = 4096;

    private final double perSecond; // 0: no limit
    private final double[] tokens = new double[BUCKETS];
    private final long[] refilledNanos = new long[BUCKETS];
    private final Object[] locks = new Object[64];

    UdpAnswerRate(int perSecond) {
        this.perSecond = perSecond;
        Arrays.fill(tokens, perSecond);
        long now = System.nanoTime();
        Arrays.fill(refilledNanos, now);
        for (int i = 0; i < locks.length; i++) {
            locks[i] = new Object();
        }
    }

    /** Whether an answer may go to {@code source} now; counts it if so. */
    boolean allow(InetAddress source) {
        return allow(source, System.nanoTime());
    }

    boolean allow(InetAddress source, long nowNanos) {
        if (perSecond <= 0) {
            return true;
        }
        int bucket = bucketOf(source);
        synchronized (locks[bucket % locks.length]) {
            double refill = (nowNanos - refilledNanos[bucket]) / 1e9 * perSecond;
            tokens[bucket] = Math.min(perSecond, tokens[bucket] + refill);
            refilledNanos[bucket] = nowNanos;
            if (tokens[bucket] < 1) {
                return false;
            }
            tokens[bucket] -= 1;
            return true;
        }
    }

    /** The bucket of the source's network: its first 3 bytes for IPv4, 7 for IPv6. */
    private static int bucketOf(InetAddress source) {
        byte[] a = source.getAddress();
        int prefixBytes = source instanceof Inet4Address ? 3 : 7;
        int h = 0x811c9dc5;
        for (int i = 0; i < prefixBytes; i++) {
            h = (h ^ (a[i] & 0xff)) * 0x01000193; // FNV-1a
        }
        return (h ^ (h >>> 16)) & (BUCKETS - 1);
    }
}
