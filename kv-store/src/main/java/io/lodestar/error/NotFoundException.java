package io.lodestar.error;

/** The resource a request names (a config, a history entry, a namespace) does not exist. */
public final class NotFoundException extends LodestarException {
    private static final long serialVersionUID = 1L;

    /** {@code message} says what is missing in the protocol's words, e.g. Nacos's "config data not exist". */
    public NotFoundException(String resource, String message) {
        super(ErrorKind.NOT_FOUND, resource, message);
    }
}
