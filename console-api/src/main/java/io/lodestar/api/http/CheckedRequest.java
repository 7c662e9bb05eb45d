package io.lodestar.api.http;

/** What a {@link RequestChecks} check sees of a request, whichever protocol carried it. */
public interface CheckedRequest {
    /** The request header's value (for gRPC, the payload's metadata header), or null. */
    String header(String name);

    /** The connection's peer address, from the socket (never from a header). */
    String remoteAddr();

    /** What the request asks for: the HTTP request path as sent (not decoded), or the gRPC request type. */
    String operation();

    /** The query or form parameter {@code name} over HTTP; null when absent, and always over gRPC. */
    String param(String name);
}
