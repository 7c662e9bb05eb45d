package io.lodestar.api.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lodestar.error.InvalidRequestException;
import io.lodestar.error.UnauthenticatedException;
import io.lodestar.kv.raft.RaftKvStore;
import io.lodestar.kv.testing.OneNodeStore;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import javax.crypto.SecretKey;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Tokens and users against a real one-node store: what a token proves, and what retires it. */
class TokensTest {
    @TempDir
    Path dir;

    RaftKvStore store;
    Users users;
    TokenKey key;
    final AtomicLong now = new AtomicLong(1_800_000_000_000L);
    final Clock clock = new Clock() {
        @Override
        public ZoneOffset getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(java.time.ZoneId zone) {
            return this;
        }

        @Override
        public Instant instant() {
            return Instant.ofEpochMilli(now.get());
        }
    };
    Tokens tokens;

    @BeforeEach
    void start() throws Exception {
        store = OneNodeStore.start(dir, AuthKeyspaces.ALL);
        users = new Users(store);
        key = new TokenKey(store);
        tokens = new Tokens(key, users, clock);
        assertTrue(users.create("alice", "alice-password", false).get(20, TimeUnit.SECONDS));
    }

    @AfterEach
    void stop() {
        store.close();
    }

    private String tokenOf(String name) throws Exception {
        SecretKey k = key.ensure().get(20, TimeUnit.SECONDS);
        return tokens.issue(users.get(name).orElseThrow(), k);
    }

    @Test
    void aTokenProvesItsUserUntilItExpires() throws Exception {
        String token = tokenOf("alice");
        assertEquals(new Principal("alice", false), tokens.verify(token));
        now.addAndGet(Tokens.TTL.toMillis() + 1);
        UnauthenticatedException expired = assertThrows(UnauthenticatedException.class, () -> tokens.verify(token));
        assertEquals("token expired!", expired.getMessage());
    }

    @Test
    void aNewPasswordOrADeletionRetiresTheTokensIssuedBefore() throws Exception {
        String before = tokenOf("alice");
        assertTrue(users.changePassword("alice", "another-password").get(20, TimeUnit.SECONDS));
        assertThrows(UnauthenticatedException.class, () -> tokens.verify(before));
        String after = tokenOf("alice");
        assertEquals("alice", tokens.verify(after).username());
        assertTrue(users.delete("alice").get(20, TimeUnit.SECONDS));
        assertThrows(UnauthenticatedException.class, () -> tokens.verify(after));
    }

    @Test
    void theKeyIsMadeOnceAndATokenOfAnotherKeyProvesNothing() throws Exception {
        SecretKey first = key.ensure().get(20, TimeUnit.SECONDS);
        assertEquals(first, new TokenKey(store).ensure().get(20, TimeUnit.SECONDS), "every node reads the one key");
        assertEquals(32, first.getEncoded().length);
        SecretKey other = io.jsonwebtoken.Jwts.SIG.HS256.key().build();
        String forged = tokens.issue(users.get("alice").orElseThrow(), other);
        assertThrows(UnauthenticatedException.class, () -> tokens.verify(forged));
    }

    @Test
    void aUserNameAndAPasswordMustBeSane() {
        for (String bad : Set.of("", "a b", "x/y", "ü", "a".repeat(Users.MAX_NAME + 1))) {
            assertThrows(InvalidRequestException.class, () -> users.create(bad, "long-enough", false), bad);
        }
        assertThrows(InvalidRequestException.class, () -> users.create("bob", "short", false));
        assertThrows(
                InvalidRequestException.class,
                () -> users.create("bob", "x".repeat(Passwords.MAX_BYTES + 1), false),
                "bcrypt would ignore what is past 72 bytes");
    }

    @Test
    void passwordsAreStoredHashedAndChecked() throws Exception {
        User alice = users.get("alice").orElseThrow();
        assertTrue(alice.passwordHash().startsWith("$2"), "a bcrypt hash, not the password");
        assertTrue(Passwords.matches("alice-password", alice.passwordHash()));
        assertTrue(!Passwords.matches("alice-passworD", alice.passwordHash()));
        assertTrue(!Passwords.matches("alice-password", null), "no user: no match");
    }
}
