package io.lodestar.naming;

/**
 * The answer to a heartbeat.
 *
 * @param clientBeatIntervalMs when the client should beat next (the instance's
 *                             {@code preserved.heart.beat.interval}, else 5000)
 */
public record BeatResult(Status status, long clientBeatIntervalMs) {

    public enum Status {
        /** The beat was taken (or the instance registered again from the full beat). */
        OK,
        /** No such instance and no full beat to register it from; Nacos answers code 20404 and the client registers again. */
        UNKNOWN
    }
}
