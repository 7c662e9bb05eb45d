package io.lodestar.api.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
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
    void aDeletedThenRecreatedUsersOldTokenIsRefusedAndTheNewOneWorks() throws Exception {
        String old = tokenOf("alice");
        assertTrue(users.delete("alice").get(20, TimeUnit.SECONDS));
        // the same name, the same password: the same generation as before, yet another user
        assertTrue(users.create("alice", "alice-password", false).get(20, TimeUnit.SECONDS));
        assertEquals(1, users.get("alice").orElseThrow().generation());
        UnauthenticatedException refused = assertThrows(UnauthenticatedException.class, () -> tokens.verify(old));
        assertEquals("token invalid!", refused.getMessage());
        String fresh = tokenOf("alice");
        assertEquals(new Principal("alice", false), tokens.verify(fresh));
        assertThrows(UnauthenticatedException.class, () -> tokens.verify(old), "still refused after a new login");
    }

    @Test
    void everyCreationDrawsAnotherRandomId() throws Exception {
        String first = users.get("alice").orElseThrow().id();
        assertTrue(users.changePassword("alice", "another-password").get(20, TimeUnit.SECONDS));
        assertEquals(first, users.get("alice").orElseThrow().id(), "a password change keeps the id");
        assertTrue(users.delete("alice").get(20, TimeUnit.SECONDS));
        assertTrue(users.create("alice", "alice-password", false).get(20, TimeUnit.SECONDS));
        String second = users.get("alice").orElseThrow().id();
        assertNotEquals(first, second);
        assertEquals(22, second.length(), "128 random bits, base64url");
    }

    /** A user record as builds before ids wrote it: version, hash, admin flag, generation. */
    private void storeRecordWithoutId(String name, String password, long generation) throws Exception {
        java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
        try (java.io.DataOutputStream out = new java.io.DataOutputStream(bytes)) {
            out.writeByte(1);
            out.writeUTF(Passwords.hash(password));
            out.writeBoolean(false);
            out.writeLong(generation);
        }
        byte[] key = name.getBytes(java.nio.charset.StandardCharsets.UTF_8);
        store.write(io.lodestar.kv.command.Command.of(
                        java.util.List.of(),
                        java.util.List.of(
                                io.lodestar.kv.command.Op.put(AuthKeyspaces.USERS, key, bytes.toByteArray()))))
                .get(20, TimeUnit.SECONDS);
    }

    @Test
    void aUserStoredBeforeIdsLogsInAndItsTokensRetireAsANewUsersDo() throws Exception {
        storeRecordWithoutId("carol", "carol-password", 3);
        User carol = users.get("carol").orElseThrow();
        assertEquals(3, carol.generation());
        assertTrue(Passwords.matches("carol-password", carol.passwordHash()));
        assertEquals(carol.id(), users.get("carol").orElseThrow().id(), "every read derives the same id");
        String token = tokenOf("carol");
        assertEquals(new Principal("carol", false), tokens.verify(token));

        // a password change writes the id it had; the token from before is retired by the generation
        assertTrue(users.changePassword("carol", "carol-password-2").get(20, TimeUnit.SECONDS));
        assertEquals(carol.id(), users.get("carol").orElseThrow().id());
        assertThrows(UnauthenticatedException.class, () -> tokens.verify(token));

        // deleted, then stored again the old way at the same generation: another hash, another id
        String again = tokenOf("carol");
        assertTrue(users.delete("carol").get(20, TimeUnit.SECONDS));
        storeRecordWithoutId("carol", "carol-password-2", 4);
        assertThrows(UnauthenticatedException.class, () -> tokens.verify(again));
    }

    @Test
    void aTokenWithoutAUserIdIsRefused() throws Exception {
        SecretKey k = key.ensure().get(20, TimeUnit.SECONDS);
        String withoutId = io.jsonwebtoken.Jwts.builder()
                .subject("alice")
                .claim("gen", 1)
                .expiration(new java.util.Date(now.get() + 60_000))
                .signWith(k)
                .compact();
        assertThrows(UnauthenticatedException.class, () -> tokens.verify(withoutId));
        String oddGeneration = io.jsonwebtoken.Jwts.builder()
                .subject("alice")
                .claim("uid", users.get("alice").orElseThrow().id())
                .claim("gen", "1")
                .expiration(new java.util.Date(now.get() + 60_000))
                .signWith(k)
                .compact();
        assertThrows(UnauthenticatedException.class, () -> tokens.verify(oddGeneration), "a 403, never a 500");
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
