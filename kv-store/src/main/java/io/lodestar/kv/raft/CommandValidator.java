package io.lodestar.kv.raft;

import io.lodestar.error.InvalidRequestException;
import io.lodestar.kv.command.Cap;
import io.lodestar.kv.command.Command;
import io.lodestar.kv.command.Compare;
import io.lodestar.kv.command.Op;
import io.lodestar.kv.count.CountRules;
import java.util.Set;

/** Checks a command at the API boundary, before anything is proposed. */
final class CommandValidator {
    static final int MAX_KEY_BYTES = 4096;

    private final Set<String> keyspaces;
    private final CountRules counting;
    private final int maxValueBytes;

    CommandValidator(Set<String> keyspaces, CountRules counting, int maxValueBytes) {
        this.keyspaces = Set.copyOf(keyspaces);
        this.counting = counting;
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
            if (op.cap() != null) {
                checkCap(op);
            }
        }
        if (total > maxValueBytes) {
            throw new InvalidRequestException(
                    "value",
                    "values of " + total + " bytes in one command exceed the limit of " + maxValueBytes + " bytes");
        }
    }

    /** A cap bounds a counted scope, with room for at least one key, and names its limit. */
    private void checkCap(Op op) {
        Cap cap = op.cap();
        if (!op.isPut() || counting.scope(op.keyspace(), op.key()) == null) {
            throw new InvalidRequestException(
                    "cap", "only a put of a key in a counted scope has a cap (counted: " + counting + ")");
        }
        if (cap.limit() == null || cap.limit().isBlank() || cap.max() < 0 || cap.room() < 1) {
            throw new InvalidRequestException("cap", "a cap names its limit, a max of 0 or more and room of 1 or more");
        }
    }

    /** {@link IllegalArgumentException} unless {@code prefix} selects whole counted scopes of the keyspace. */
    void checkCounted(String keyspace, byte[] prefix) {
        checkKeyspace(keyspace);
        if (!counting.selectsWholeScopes(keyspace, prefix)) {
            throw new IllegalArgumentException(
                    "keyspace " + keyspace + " is not counted by whole scopes under that prefix (" + counting + ")");
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
