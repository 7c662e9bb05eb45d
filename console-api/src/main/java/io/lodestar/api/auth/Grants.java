package io.lodestar.api.auth;

import io.lodestar.api.request.Resource;
import io.lodestar.error.InvalidRequestException;
import io.lodestar.error.NotFoundException;
import io.lodestar.kv.KvEntry;
import io.lodestar.kv.KvStore;
import io.lodestar.kv.command.Command;
import io.lodestar.kv.command.Compare;
import io.lodestar.kv.command.Op;
import io.lodestar.kv.rmw.ReadModifyWrite;
import io.lodestar.kv.rmw.Step;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * Roles and permissions as Nacos has them, replicated through the store: a user has roles, a role
 * has permissions, a permission grants an action ({@code r}, {@code w} or {@code rw}) on the
 * resources its pattern matches ({@link Resources}). A role exists while some user has it. The
 * global admin's role, {@value #ADMIN_ROLE}, is the admin user's own and cannot be given.
 */
public final class Grants {
    public static final String ADMIN_ROLE = "ROLE_ADMIN";
    private static final char SEP = '\0';
    private static final int MAX_ROLE = 64;
    private static final int SCAN_LIMIT = 100_000;

    /** One user's role. */
    public record RoleBinding(String role, String username) {}

    /** One permission of a role. */
    public record Permission(String role, String resource, String action) {
        public boolean grants(char wanted) {
            return action.indexOf(wanted) >= 0;
        }
    }

    private final KvStore store;
    private final Users users;
    private final ReadModifyWrite writes;

    Grants(KvStore store, Users users) {
        this.store = store;
        this.users = users;
        this.writes = new ReadModifyWrite(store);
    }

    /** Gives {@code username} the role; completes with false if it had it already. */
    public CompletableFuture<Boolean> bind(String role, String username) {
        checkRole(role);
        if (ADMIN_ROLE.equals(role)) {
            throw new InvalidRequestException("role", "'" + ADMIN_ROLE + "' is the admin's own and cannot be given");
        }
        Users.checkName(username);
        if (users.get(username).isEmpty()) {
            throw new NotFoundException("username", "user '" + username + "' not found");
        }
        byte[] key = key(username, role);
        return writes.run("the role", () -> {
            if (store.get(AuthKeyspaces.ROLES, key) != null) {
                return Step.answer(false);
            }
            return Step.propose(
                    Command.of(
                            List.of(Compare.modRevision(AuthKeyspaces.ROLES, key, 0)),
                            List.of(Op.put(AuthKeyspaces.ROLES, key, new byte[0]))),
                    true);
        });
    }

    /**
     * Takes the role from {@code username}, or from every user when it is null (the role is then
     * gone, its permissions with it); completes with whether anything was taken.
     */
    public CompletableFuture<Boolean> unbind(String role, String username) {
        checkRole(role);
        return writes.run("the role", () -> {
            List<Op> ops = new ArrayList<>();
            for (RoleBinding b : bindings()) {
                if (b.role().equals(role) && (username == null || b.username().equals(username))) {
                    ops.add(Op.delete(AuthKeyspaces.ROLES, key(b.username(), role)));
                }
            }
            if (ops.isEmpty()) {
                return Step.answer(false);
            }
            if (username == null) {
                for (Permission p : permissions(role)) {
                    ops.add(Op.delete(AuthKeyspaces.PERMISSIONS, key(role, p.resource(), p.action())));
                }
            }
            return Step.propose(Command.of(List.of(), ops), true);
        });
    }

    /** The roles of {@code username}, from this node's copy. */
    public List<String> roles(String username) {
        byte[] prefix = key(username, "");
        List<String> out = new ArrayList<>();
        for (KvEntry e : store.scan(AuthKeyspaces.ROLES, prefix, SCAN_LIMIT)) {
            out.add(text(e.key()).substring(username.length() + 1));
        }
        return out;
    }

    /** Every binding, by user name, from this node's copy. */
    public List<RoleBinding> bindings() {
        List<RoleBinding> out = new ArrayList<>();
        for (KvEntry e : store.scan(AuthKeyspaces.ROLES, new byte[0], SCAN_LIMIT)) {
            String[] parts = text(e.key()).split(String.valueOf(SEP), 2);
            out.add(new RoleBinding(parts[1], parts[0]));
        }
        return out;
    }

    /** Grants {@code action} on {@code resource} to an existing role; completes with false if it was granted already. */
    public CompletableFuture<Boolean> grant(Permission permission) {
        String role = permission.role();
        String resource = permission.resource();
        String action = permission.action();
        checkRole(role);
        Resources.checkPattern(resource);
        checkAction(action);
        byte[] key = key(role, resource, action);
        return writes.run("the permission", () -> {
            if (bindings().stream().noneMatch(b -> b.role().equals(role))) {
                throw new NotFoundException("role", "role '" + role + "' not found (give it to a user first)");
            }
            if (store.get(AuthKeyspaces.PERMISSIONS, key) != null) {
                return Step.answer(false);
            }
            return Step.propose(
                    Command.of(
                            List.of(Compare.modRevision(AuthKeyspaces.PERMISSIONS, key, 0)),
                            List.of(Op.put(AuthKeyspaces.PERMISSIONS, key, new byte[0]))),
                    true);
        });
    }

    /** Takes back one permission; completes with whether the role had it. */
    public CompletableFuture<Boolean> revoke(Permission permission) {
        checkRole(permission.role());
        byte[] key = key(permission.role(), permission.resource(), permission.action());
        return writes.run("the permission", () -> {
            KvEntry e = store.get(AuthKeyspaces.PERMISSIONS, key);
            if (e == null) {
                return Step.answer(false);
            }
            return Step.propose(
                    Command.of(
                            List.of(Compare.modRevision(AuthKeyspaces.PERMISSIONS, key, e.modRevision())),
                            List.of(Op.delete(AuthKeyspaces.PERMISSIONS, key))),
                    true);
        });
    }

    /** The permissions of {@code role}, or of every role when it is null, from this node's copy. */
    public List<Permission> permissions(String role) {
        byte[] prefix = role == null ? new byte[0] : key(role, "");
        List<Permission> out = new ArrayList<>();
        for (KvEntry e : store.scan(AuthKeyspaces.PERMISSIONS, prefix, SCAN_LIMIT)) {
            String[] parts = text(e.key()).split(String.valueOf(SEP), 3);
            if (parts.length == 3) {
                out.add(new Permission(parts[0], parts[1], parts[2]));
            }
        }
        return out;
    }

    /** Whether {@code username} is a global admin, who may do everything. */
    boolean isAdmin(String username) {
        return username != null && users.get(username).map(User::admin).orElse(false);
    }

    /** Whether {@code username}'s roles grant {@code action} on {@code resource}. */
    boolean permits(String username, char action, Resource resource) {
        for (String role : roles(username)) {
            for (Permission p : permissions(role)) {
                if (p.grants(action) && Resources.matches(p.resource(), resource)) {
                    return true;
                }
            }
        }
        return false;
    }

    static void checkRole(String role) {
        if (role == null || role.isEmpty()) {
            throw InvalidRequestException.missing("role");
        }
        if (role.length() > MAX_ROLE) {
            throw new InvalidRequestException("role", "longer than " + MAX_ROLE + " characters");
        }
        for (int i = 0; i < role.length(); i++) {
            char c = role.charAt(i);
            if (!(Character.isLetterOrDigit(c) && c < 128) && c != '-' && c != '_' && c != '.') {
                throw new InvalidRequestException(
                        "role", "illegal character '" + c + "' (allowed: letters, digits, - _ .)");
            }
        }
    }

    static void checkAction(String action) {
        if (action == null || action.isEmpty()) {
            throw InvalidRequestException.missing("action");
        }
        if (!action.equals("r") && !action.equals("w") && !action.equals("rw")) {
            throw new InvalidRequestException("action", "must be r, w or rw, not '" + action + "'");
        }
    }

    private static byte[] key(String... parts) {
        return String.join(String.valueOf(SEP), parts).getBytes(StandardCharsets.UTF_8);
    }

    private static String text(byte[] key) {
        return new String(key, StandardCharsets.UTF_8);
    }
}
