package io.lodestar.api.auth;

import io.lodestar.error.InvalidRequestException;
import io.lodestar.kv.KvEntry;
import io.lodestar.kv.KvStore;
import io.lodestar.kv.command.Command;
import io.lodestar.kv.command.Compare;
import io.lodestar.kv.command.Op;
import io.lodestar.kv.rmw.ReadModifyWrite;
import io.lodestar.kv.rmw.Step;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/** The users, replicated through the store: reads are this node's copy, writes go through Raft. */
public final class Users {
    static final int MAX_NAME = 64;
    /** The length of a user's random id: 128 bits, as unguessable and as unlikely to repeat as a UUID's. */
    static final int ID_BYTES = 16;

    private static final SecureRandom RANDOM = new SecureRandom();

    private final KvStore store;
    private final ReadModifyWrite writes;

    public Users(KvStore store) {
        this.store = store;
        this.writes = new ReadModifyWrite(store);
    }

    /** The user, from this node's copy. */
    public Optional<User> get(String username) {
        if (username == null) {
            return Optional.empty();
        }
        KvEntry e = store.get(AuthKeyspaces.USERS, key(username));
        return e == null ? Optional.empty() : Optional.of(UserCodec.decode(username, e.value()));
    }

    /** Every user's name, in order (from this node's copy). */
    public List<String> names() {
        return store.scan(AuthKeyspaces.USERS, new byte[0], 100_000).stream()
                .map(e -> new String(e.key(), StandardCharsets.UTF_8))
                .toList();
    }

    /** Whether any user exists, on this node's copy. */
    public boolean any() {
        return !store.scan(AuthKeyspaces.USERS, new byte[0], 1).isEmpty();
    }

    /**
     * Creates the user with {@code password} and a fresh random id unless one of that name exists;
     * completes with whether it created it. {@link InvalidRequestException} for an illegal name or
     * password.
     */
    public CompletableFuture<Boolean> create(String username, String password, boolean admin) {
        checkName(username);
        User user = new User(username, newId(), Passwords.hash(password), admin, 1);
        byte[] key = key(username);
        return writes.run("the user", () -> {
            if (store.get(AuthKeyspaces.USERS, key) != null) {
                return Step.answer(false);
            }
            Command command = Command.of(
                    List.of(Compare.modRevision(AuthKeyspaces.USERS, key, 0)),
                    List.of(Op.put(AuthKeyspaces.USERS, key, UserCodec.encode(user))));
            return Step.propose(command, true);
        });
    }

    /**
     * Sets a new password and retires every token issued before (the id stays, the generation
     * rises); completes with false for an unknown user.
     */
    public CompletableFuture<Boolean> changePassword(String username, String password) {
        String hash = Passwords.hash(password);
        byte[] key = key(username);
        return writes.run("the user", () -> {
            KvEntry e = store.get(AuthKeyspaces.USERS, key);
            if (e == null) {
                return Step.answer(false);
            }
            User old = UserCodec.decode(username, e.value());
            User changed = new User(username, old.id(), hash, old.admin(), old.generation() + 1);
            Command command = Command.of(
                    List.of(Compare.modRevision(AuthKeyspaces.USERS, key, e.modRevision())),
                    List.of(Op.put(AuthKeyspaces.USERS, key, UserCodec.encode(changed))));
            return Step.propose(command, true);
        });
    }

    /** Deletes the user (its tokens and roles with it); completes with whether it existed. */
    public CompletableFuture<Boolean> delete(String username) {
        byte[] key = key(username);
        return writes.run("the user", () -> {
            KvEntry e = store.get(AuthKeyspaces.USERS, key);
            if (e == null) {
                return Step.answer(false);
            }
            List<Op> ops = new ArrayList<>();
            ops.add(Op.delete(AuthKeyspaces.USERS, key));
            // its roles go with it: a user of the same name made later starts with none
            byte[] roles = (username + '\0').getBytes(StandardCharsets.UTF_8);
            store.scan(AuthKeyspaces.ROLES, roles, 100_000)
                    .forEach(r -> ops.add(Op.delete(AuthKeyspaces.ROLES, r.key())));
            Command command = Command.of(List.of(Compare.modRevision(AuthKeyspaces.USERS, key, e.modRevision())), ops);
            return Step.propose(command, true);
        });
    }

    static void checkName(String username) {
        if (username == null || username.isEmpty()) {
            throw InvalidRequestException.missing("username");
        }
        if (username.length() > MAX_NAME) {
            throw new InvalidRequestException("username", "longer than " + MAX_NAME + " characters");
        }
        for (int i = 0; i < username.length(); i++) {
            char c = username.charAt(i);
            boolean ok = (c >= 'a' && c <= 'z')
                    || (c >= 'A' && c <= 'Z')
                    || (c >= '0' && c <= '9')
                    || c == '-'
                    || c == '_'
                    || c == '.'
                    || c == '@';
            if (!ok) {
                throw new InvalidRequestException(
                        "username", "illegal character '" + c + "' (allowed: letters, digits, - _ . @)");
            }
        }
    }

    private static String newId() {
        byte[] id = new byte[ID_BYTES];
        RANDOM.nextBytes(id);
        return Base64.getUrlEncoder().withoutPadding().encodeToString(id);
    }

    private static byte[] key(String username) {
        return username.getBytes(StandardCharsets.UTF_8);
    }
}
