package io.lodestar.kv.raft;

import io.lodestar.error.InvalidRequestException;
import io.lodestar.kv.command.Command;
import io.lodestar.kv.command.Compare;
import io.lodestar.kv.command.Op;
import java.util.Set;

/** Checks a command at the API boundary, before anything is proposed. */
final class CommandValidator {
    static final int MAX_KEY_BYTES = 4096;

    private final Set<String> keyspaces;
    private final int maxValueBytes;

    CommandValidator(Set<String> keyspaces, int maxValueBytes) {
        this.keyspaces = Set.copyOf(keyspaces);
        this.maxValueBytes = maxValueBytes;
    }

    void check(Command command) {
        if (command == null || command.ops().isEmpty()) {
            throw new InvalidRequestException("ops", "a command needs at least one op");
        }
        for (Compare c : command.compares()) {
            checkKey(c.keyspace(), c.key());
        }
        long total = 0;
        for (Op op : command.ops()) {
            checkKey(op.keyspace(), op.key());
            if (op.isPut()) {
                if (op.value() == null) {
                    throw new InvalidRequestException("value", "a put needs a value");
                }
                if (op.value().length > maxValueBytes) {
                    throw new InvalidRequestException(
                            "value",
                            "value of " + op.value().length + " bytes exceeds the limit of " + maxValueBytes
                                    + " bytes");
                }
                total += op.value().length;
            }
        }
        if (total > maxValueBytes) {
            throw new InvalidRequestException(
                    "value",
                    "values of " + total + " bytes in one command exceed the limit of " + maxValueBytes + " bytes");
        }
    }

    void checkKeyspace(String keyspace) {
        if (keyspace == null || !keyspaces.contains(keyspace)) {
            throw new InvalidRequestException("keyspace", "unknown keyspace '" + keyspace + "'");
        }
    }

    private void checkKey(String keyspace, byte[] key) {
        checkKeyspace(keyspace);
        if (key == null || key.length == 0) {
            throw new InvalidRequestException("key", "key must not be empty");
        }
        if (key.length > MAX_KEY_BYTES) {
            throw new InvalidRequestException(
                    "key", "key of " + key.length + " bytes exceeds " + MAX_KEY_BYTES + " bytes");
        }
    }
}
