package io.lodestar.api.http;

/** What one route does: parse, validate, call the domain, answer. Whatever it throws is answered by {@link ErrorMapping}. */
@FunctionalInterface
public interface Endpoint {
    void handle(Exchange exchange) throws Exception;
}
