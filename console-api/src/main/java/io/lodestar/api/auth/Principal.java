package io.lodestar.api.auth;

/** Who a request comes from, as its token proved. */
public record Principal(String username, boolean admin) {}
