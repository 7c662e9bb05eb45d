package io.lodestar.api.http;

import com.fasterxml.jackson.databind.JsonNode;

/** What a {@link RequestChecks} check sees of a request, whichever protocol carried it. */
public interface CheckedRequest {
    /** The request header's value (for gRPC, the payload's metadata header), or null. */
    String header(String name);

    /** The connection's peer address, from the socket (never from a header). */
    String remoteAddr();

    /**
     * What the request asks for, as {@code AccessRules} names it: {@code METHOD path} of the route
     * that serves it over HTTP (its template, as registered: never another spelling of it), {@code
     * WS path} for a WebSocket upgrade, the request type over gRPC.
     */
    String operation();

    /** The query or form parameter {@code name} over HTTP, the body's string field over gRPC; null when absent. */
    String param(String name);

    /**
     * The user the request's token proved, once the checks ran: what history and audit record as
     * the request's author, never a parameter. Null with authentication off, and for open operations.
     */
    String caller();

    /** Records {@link #caller()}; called by the checks only. */
    void caller(String username);

    /** The JSON body of a gRPC request; null over HTTP. */
    default JsonNode body() {
        return null;
    }
}
