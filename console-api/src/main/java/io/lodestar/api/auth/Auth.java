package io.lodestar.api.auth;

import io.lodestar.api.audit.AuditLog;
import io.lodestar.api.request.RequestChecks;
import io.lodestar.api.request.Resource;
import io.lodestar.error.UnauthenticatedException;
import io.lodestar.kv.KvStore;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.time.Clock;
import java.util.Base64;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Authentication and authorization: users, roles and permissions, logging in, access tokens, and
 * the check every request passes. With it on, the first start of a cluster creates the admin user {@value #ADMIN} with a random
 * password, written only to {@value #PASSWORD_FILE} in the data directory of the node that created
 * it (readable by its owner only); the log names that file, never the password. No fixed password
 * exists anywhere.
 */
public final class Auth implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(Auth.class);
    public static final String LOGIN_PATH = "/nacos/v1/auth/users/login";

    /**
     * How a browser sends its token on a WebSocket upgrade, where it cannot set headers and the URL
     * would leak it into logs: as one of the offered subprotocols, {@code lodestar.bearer.<token>}
     * (a JWT's characters are all valid there). The server never selects it.
     */
    public static final String WS_BEARER_PROTOCOL_PREFIX = "lodestar.bearer.";
    /** The path of older clients (nacos-client before 1.2). */
    public static final String OLD_LOGIN_PATH = "/nacos/v1/auth/login";
    /** The path nacos-client 3.x tries first. */
    public static final String V3_LOGIN_PATH = "/nacos/v3/auth/user/login";

    public static final String ADMIN = "nacos";
    static final String PASSWORD_FILE = "initial-admin-password";
    private static final SecureRandom RANDOM = new SecureRandom();

    /** What a successful login answers, as Nacos's clients read it. */
    public record Login(String accessToken, long tokenTtl, boolean globalAdmin, String username) {}

    private final boolean enabled;
    private final Users users;
    private final Grants grants;
    private final AuditLog audit;
    private final TokenKey key;
    private final Tokens tokens;
    private final LoginThrottle throttle;
    private final LongAdder passwordChecks = new LongAdder();
    private final ScheduledExecutorService setup = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "auth-setup");
        t.setDaemon(true);
        return t;
    });

    private Auth(KvStore store, boolean enabled, Clock clock, AuditLog audit) {
        this.enabled = enabled;
        this.audit = audit;
        this.users = new Users(store);
        this.grants = new Grants(store, users);
        this.key = new TokenKey(store);
        this.tokens = new Tokens(key, users, clock);
        this.throttle = new LoginThrottle(clock);
    }

    /**
     * Authentication over {@code store}; when {@code enabled}, makes the token key and the admin
     * user in the background once the store takes writes. Writes and refusals go to the audit log
     * in {@code dataDir}, with authentication on or off.
     */
    public static Auth start(KvStore store, boolean enabled, Path dataDir) {
        Auth auth = new Auth(store, enabled, Clock.systemUTC(), AuditLog.open(dataDir));
        if (enabled) {
            auth.setup.execute(() -> auth.firstStart(dataDir, 0));
        }
        return auth;
    }

    public boolean enabled() {
        return enabled;
    }

    public Users users() {
        return users;
    }

    public Grants grants() {
        return grants;
    }

    /**
     * Refuses, naming the key, a read of {@code key} by {@code caller} (null with authentication
     * off) that its roles do not grant: for the push channel, whose subscriptions come after the check.
     */
    public void checkRead(String caller, io.lodestar.config.ConfigKey key) {
        if (!enabled) {
            return;
        }
        Resource resource = Resource.config(key);
        if (!grants.isAdmin(caller) && !grants.permits(caller, 'r', resource)) {
            throw new io.lodestar.error.ForbiddenException("'" + caller + "' may not read " + resource);
        }
    }

    /** As {@link #checkRead(String, io.lodestar.config.ConfigKey)}, for a service (the push channel's subscriptions). */
    public void checkServiceRead(String caller, io.lodestar.naming.model.ServiceKey service) {
        if (!enabled) {
            return;
        }
        Resource resource = Resource.service(service);
        if (!grants.isAdmin(caller) && !grants.permits(caller, 'r', resource)) {
            throw new io.lodestar.error.ForbiddenException("'" + caller + "' may not read " + resource);
        }
    }

    /** The check for the request chain: who may do what ({@link Authorization}); only the declarations while off. */
    public RequestChecks.Check check() {
        return new Authorization(enabled, new Authentication(tokens), grants, audit);
    }

    /**
     * Logs {@code username} in: a token, or {@link UnauthenticatedException} that does not say
     * whether the name or the password was wrong. Failures are limited per name at an address and
     * per address ({@link LoginThrottle}); a password is checked only within the limit.
     */
    public CompletableFuture<Login> login(String username, String password, String address) {
        User user;
        try (LoginThrottle.Attempt attempt = throttle.begin(username, address)) {
            user = users.get(username).orElse(null);
            passwordChecks.increment();
            if (!Passwords.matches(password, user == null ? null : user.passwordHash())) {
                attempt.failed();
                LOG.info("failed login as '{}' from {}", username, address);
                throw new UnauthenticatedException("user not found or wrong password!");
            }
            attempt.succeeded();
        }
        return key.ensure()
                .thenApply(
                        k -> new Login(tokens.issue(user, k), Tokens.TTL.toSeconds(), user.admin(), user.username()));
    }

    /** How many passwords logins have checked since start: each a deliberately slow bcrypt comparison. */
    public long passwordChecks() {
        return passwordChecks.sum();
    }

    /** Makes the token key, then the admin user if there is no user at all; retried until the store takes them. */
    private void firstStart(Path dataDir, int attempt) {
        try {
            key.ensure().get(30, TimeUnit.SECONDS);
            if (!users.any()) {
                // on disk first (under a name no one reads yet): a password only in the store would lock everyone
                // out; renamed into place once the user exists, so whoever sees the file can log in with it
                String password = randomPassword();
                Path pending = writePasswordFile(dataDir.resolve(PASSWORD_FILE + ".pending"), password);
                if (users.create(ADMIN, password, true).get(30, TimeUnit.SECONDS)) {
                    Path file = Files.move(
                            pending,
                            dataDir.resolve(PASSWORD_FILE),
                            StandardCopyOption.REPLACE_EXISTING,
                            StandardCopyOption.ATOMIC_MOVE);
                    // the path only: a log line is copied to consoles, collectors and tickets
                    LOG.warn(
                            "created the admin user '{}'; its password is in {} (readable by this user only); log"
                                    + " in with it, change it, then delete the file",
                            ADMIN,
                            file);
                } else {
                    Files.deleteIfExists(pending); // another node created it first
                }
            }
        } catch (Exception e) {
            if (attempt % 10 == 0) {
                LOG.info("auth set-up waits for the store to take writes ({})", e.getMessage());
            }
            try {
                setup.schedule(() -> firstStart(dataDir, attempt + 1), 1, TimeUnit.SECONDS);
            } catch (java.util.concurrent.RejectedExecutionException stopping) {
                // closed meanwhile
            }
        }
    }

    private static String randomPassword() {
        byte[] bytes = new byte[18];
        RANDOM.nextBytes(bytes);
        return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
    }

    private static Path writePasswordFile(Path file, String password) {
        try {
            Files.deleteIfExists(file);
            Files.createFile(file, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
            Files.writeString(file, password + "\n", StandardOpenOption.TRUNCATE_EXISTING);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file, e);
        }
        return file;
    }

    @Override
    public void close() {
        setup.shutdownNow();
        audit.close();
    }
}
