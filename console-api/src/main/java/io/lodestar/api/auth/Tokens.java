package io.lodestar.api.auth;

import io.jsonwebtoken.Claims;
import io.jsonwebtoken.JwtException;
import io.jsonwebtoken.Jwts;
import io.lodestar.error.UnauthenticatedException;
import java.time.Clock;
import java.time.Duration;
import java.util.Date;
import javax.crypto.SecretKey;

/**
 * Access tokens: JWTs signed with the cluster's {@link TokenKey} (HMAC-SHA256 only; a token with
 * another algorithm, or none, is refused), naming the user, its {@linkplain User#id() id} and the
 * generation of its password, and expiring after {@link #TTL}. A token is good only while a user of
 * that name exists with that id and that generation: a password change or a deletion retires it for
 * good, even if a user of the same name is created later. A token without an id (issued by a build
 * that predates ids) is refused: its client logs in again.
 */
final class Tokens {
    /** Nacos's default token lifetime; its clients log in again well before it ends. */
    static final Duration TTL = Duration.ofHours(5);

    private static final String GENERATION = "gen";
    private static final String USER_ID = "uid";

    private final TokenKey key;
    private final Users users;
    private final Clock clock;

    Tokens(TokenKey key, Users users, Clock clock) {
        this.key = key;
        this.users = users;
        this.clock = clock;
    }

    /** A token for {@code user}, signed with {@code signingKey}. */
    String issue(User user, SecretKey signingKey) {
        long now = clock.millis();
        return Jwts.builder()
                .subject(user.username())
                .claim(USER_ID, user.id())
                .claim(GENERATION, user.generation())
                .issuedAt(new Date(now))
                .expiration(new Date(now + TTL.toMillis()))
                .signWith(signingKey, Jwts.SIG.HS256)
                .compact();
    }

    /** Who {@code token} proves, or {@link UnauthenticatedException} saying why it proves no one. */
    Principal verify(String token) {
        SecretKey k = key.current();
        if (k == null) {
            throw new UnauthenticatedException("token invalid!");
        }
        Claims claims;
        try {
            claims = Jwts.parser()
                    .verifyWith(k)
                    .clock(() -> new Date(clock.millis()))
                    .build()
                    .parseSignedClaims(token)
                    .getPayload();
        } catch (io.jsonwebtoken.ExpiredJwtException e) {
            throw new UnauthenticatedException("token expired!");
        } catch (JwtException | IllegalArgumentException e) {
            throw new UnauthenticatedException("token invalid!");
        }
        User user = users.get(claims.getSubject()).orElse(null);
        Object id = claims.get(USER_ID);
        Object generation = claims.get(GENERATION);
        if (user == null
                || !user.id().equals(id)
                || !(generation instanceof Number n)
                || n.longValue() != user.generation()) {
            // deleted (and perhaps created again since), or its password changed: the token is retired
            throw new UnauthenticatedException("token invalid!");
        }
        return new Principal(user.username(), user.admin());
    }
}
