package io.lodestar.kv;

/** Rejected at the API boundary before anything was proposed: names the offending field. */
public final class InvalidRequestException extends KvException {
    private static final long serialVersionUID = 1L;
    private final String field;

    public InvalidRequestException(String field, String message) {
        super(field + ": " + message);
        this.field = field;
    }

    public String field() {
        return field;
    }
}
