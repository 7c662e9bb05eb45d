package io.lodestar.api.request;

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

    /**
     * The query or form parameter {@code name} over HTTP, the body's string field over gRPC; null
     * when absent. For authentication only (the token): what a request acts on is read from its
     * {@link #typed()} request.
     */
    String param(String name);

    /**
     * The user the request's token proved, once the checks ran: what history and audit record as
     * the request's author, never a parameter. Null with authentication off, and for open operations.
     */
    String caller();

    /** Records {@link #caller()}; called by the checks only. */
    void caller(String username);

    /**
     * The typed request the operation's parser built, once the checks authorized it: what the
     * audit line names. Null before, and for operations that act on no resource.
     */
    Scoped typed();

    /** Records {@link #typed()}; called by the checks only. */
    void typed(Scoped request);
}
