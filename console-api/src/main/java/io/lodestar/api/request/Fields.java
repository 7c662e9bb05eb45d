package io.lodestar.api.request;

/**
 * A request's named fields as one protocol carries them: an HTTP request's form and query
 * parameters, or a gRPC body's fields. Only the parsers read them; what they build is what the
 * check, the handler and the audit line see.
 */
@FunctionalInterface
public interface Fields {
    /** The field's value as text, or null when absent. */
    String get(String name);
}
