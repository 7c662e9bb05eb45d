package io.lodestar.api.balance;

/**
 * One member's load as it reported it: {@code member} its Raft address (how the group names it),
 * {@code httpAddress} where its clients are sent ({@code host:port}; the client adds the gRPC
 * offset), the nacos-client connections it serves, and whether it is ready to take clients.
 */
public record MemberLoad(String member, String httpAddress, int connections, boolean ready) {}
