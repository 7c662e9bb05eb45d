package io.lodestar.api.auth;

import io.lodestar.error.InvalidRequestException;
import java.nio.charset.StandardCharsets;
import org.springframework.security.crypto.bcrypt.BCryptPasswordEncoder;

/**
 * Password hashing: bcrypt (salted, deliberately slow; its cost makes each guess take tens of
 * milliseconds). bcrypt reads at most 72 bytes, so longer passwords are refused rather than cut.
 */
final class Passwords {
    static final int MIN_LENGTH = 8;
    static final int MAX_BYTES = 72;
    private static final BCryptPasswordEncoder BCRYPT = new BCryptPasswordEncoder(10);
    /** Compared against when the user does not exist, so that a miss costs what a wrong password does. */
    private static final String DECOY = BCRYPT.encode("decoy password, never a user's");

    private Passwords() {}

    /** The hash of a new password; {@link InvalidRequestException} on {@code password} if it is too short or too long. */
    static String hash(String password) {
        if (password == null || password.length() < MIN_LENGTH) {
            throw new InvalidRequestException("password", "must be at least " + MIN_LENGTH + " characters");
        }
        if (password.getBytes(StandardCharsets.UTF_8).length > MAX_BYTES) {
            throw new InvalidRequestException("password", "must be at most " + MAX_BYTES + " bytes in UTF-8");
        }
        return BCRYPT.encode(password);
    }

    /** Whether {@code password} matches {@code hash}; a null hash (no such user) takes as long and never matches. */
    static boolean matches(String password, String hash) {
        if (password == null || password.getBytes(StandardCharsets.UTF_8).length > MAX_BYTES) {
            BCRYPT.matches("", DECOY);
            return false;
        }
        if (hash == null) {
            BCRYPT.matches(password, DECOY);
            return false;
        }
        return BCRYPT.matches(password, hash);
    }
}
