package io.lodestar.kv.rmw;

import io.lodestar.kv.command.Command;
import io.lodestar.kv.command.WriteResult;
import java.util.function.Function;

/** What one attempt of a {@link ReadModifyWrite} decided from what it read. */
public sealed interface Step<T> {

    /** Nothing to write: the operation completes with {@code value}. */
    static <T> Step<T> answer(T value) {
        return new Answer<>(value, false);
    }

    /**
     * Nothing to write, but only if this node's replica is current: the first time, the helper
     * catches up with the leader (ReadIndex) and runs the attempt again, so an answer that a lagging
     * replica would get wrong (a write another node acknowledged, not applied here yet) is decided
     * on current data.
     */
    static <T> Step<T> answerIfCurrent(T value) {
        return new Answer<>(value, true);
    }

    /** Propose {@code command}; once its compares hold, the operation completes with {@code value}. */
    static <T> Step<T> propose(Command command, T value) {
        return new Propose<>(command, r -> value);
    }

    /** Propose {@code command}; once its compares hold, the operation completes with its revision. */
    static Step<Long> proposeForRevision(Command command) {
        return new Propose<>(command, WriteResult::revision);
    }

    record Answer<T>(T value, boolean needsCurrentReplica) implements Step<T> {}

    record Propose<T>(Command command, Function<WriteResult, T> committed) implements Step<T> {}
}
