package io.lodestar.naming.health;

/**
 * The outcome of one probe.
 *
 * @param outcome UP or DOWN as the target answered; UNKNOWN when the prober itself could not
 *     probe (closed, or failing on its own side), which counts neither way
 * @param detail why, for logs: e.g. "connected", "HTTP 500", "timed out after 2000 ms"
 */
public record ProbeResult(Outcome outcome, String detail) {
    public enum Outcome {
        UP,
        DOWN,
        UNKNOWN
    }

    public static ProbeResult up(String detail) {
        return new ProbeResult(Outcome.UP, detail);
    }

    public static ProbeResult down(String detail) {
        return new ProbeResult(Outcome.DOWN, detail);
    }

    public static ProbeResult unknown(String detail) {
        return new ProbeResult(Outcome.UNKNOWN, detail);
    }
}
