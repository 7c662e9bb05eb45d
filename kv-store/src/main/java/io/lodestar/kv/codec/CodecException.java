package io.lodestar.kv.codec;

/** A payload could not be decoded: malformed, or naming a class outside the allowlist. */
public final class CodecException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public CodecException(String message, Throwable cause) {
        super(message, cause);
    }
}
