package io.lodestar.kv.raft;

import com.alipay.sofa.jraft.Closure;
import com.alipay.sofa.jraft.Status;
import com.alipay.sofa.jraft.error.RaftError;
import io.lodestar.kv.command.Command;
import io.lodestar.kv.command.WriteResult;
import java.util.function.Consumer;

/**
 * Carries a proposal from {@code Node.apply} to the state machine on the leader (so the command is
 * not decoded again) and its outcome back to the proposer.
 */
final class ProposeClosure implements Closure {
    private final Command command;
    private final Consumer<WriteResult> onApplied;
    private final Consumer<Status> onFailed;
    private WriteResult result;

    ProposeClosure(Command command, Consumer<WriteResult> onApplied, Consumer<Status> onFailed) {
        this.command = command;
        this.onApplied = onApplied;
        this.onFailed = onFailed;
    }

    Command command() {
        return command;
    }

    /** Set by the state machine before it runs the closure with an OK status. */
    void setResult(WriteResult result) {
        this.result = result;
    }

    @Override
    public void run(Status status) {
        if (status.isOk() && result != null) {
            onApplied.accept(result);
        } else {
            onFailed.accept(status.isOk() ? new Status(RaftError.EINTERNAL, "applied without a result") : status);
        }
    }

    /**
     * True when JRaft refused the task before appending it to the log, so it cannot be committed
     * and may be proposed again. JRaft 1.4.1 says so only through these messages; any other
     * failure after {@code apply} (for example "Leader stepped down") leaves the outcome unknown.
     */
    static boolean refusedBeforeAppend(Status status) {
        String msg = status.getErrorMsg() == null ? "" : status.getErrorMsg();
        return switch (status.getRaftError()) {
            case EPERM -> msg.startsWith("Is not leader") || msg.startsWith("expected_term");
            case EBUSY, ENODESHUTDOWN -> true;
            default -> false;
        };
    }
}
