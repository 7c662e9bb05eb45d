package io.lodestar.api.limits;

import io.lodestar.config.listen.LongPollRegistry;
import io.lodestar.config.namespace.NamespaceService;
import io.lodestar.config.service.ConfigService;
import io.lodestar.kv.RaftPortSettings;
import io.lodestar.naming.NamingQuotas;

/**
 * Every limit a node enforces on its clients, in one place: the name an operator sets it by
 * ({@code --limit NAME=VALUE}), its default, and what a client meets past it. docs/limits.md
 * explains each; a test keeps that page and this list the same. The {@code quota.*} limits bound
 * what the cluster stores; give every member the same values (the leader's decide).
 */
public enum Limit {
    HTTP_CONNECTIONS("http.connections", 10_000, false, "open HTTP connections; further ones wait in the accept queue"),
    HTTP_CONNECTIONS_PER_ADDRESS(
            "http.connections-per-address",
            4_000,
            false,
            "open HTTP connections from one client address; further ones are closed at once"),
    HTTP_THREADS_PER_ADDRESS(
            "http.threads-per-address",
            64,
            false,
            "requests from one client address worked on at once; one more is answered 429"),
    HTTP_BODY_BYTES(
            "http.body-bytes",
            31L << 20,
            true,
            "a request body, with or without a length, multipart included; past it the request is answered 413"),
    HTTP_BODY_MIN_RATE(
            "http.body-min-bytes-per-second",
            1024,
            true,
            "the slowest a request body may arrive on average; a slower one is cut off with 408 (0: no minimum)"),
    GRPC_CONNECTIONS(
            "grpc.connections",
            100_000,
            false,
            "gRPC connections set up on this node; a client connecting past it is sent to another server (0: no limit)"),
    GRPC_MESSAGE_BYTES("grpc.message-bytes", 16L << 20, true, "one gRPC message; a larger one fails its call"),
    GRPC_STREAMS_PER_CONNECTION(
            "grpc.streams-per-connection",
            256,
            false,
            "calls in flight on one gRPC connection (HTTP/2 MAX_CONCURRENT_STREAMS); a client waits for a free one"),
    GRPC_RESETS_PER_10S(
            "grpc.resets-per-10s",
            500,
            false,
            "streams a client may reset within 10 seconds; past it its connection is closed (the 'rapid reset' flood)"),
    GRPC_SETUP_LABEL_BYTES(
            "grpc.setup-label-bytes",
            16 << 10,
            true,
            "the labels a client sends when it sets up a connection, kept while it lives; larger ones refuse the setup"),
    GRPC_UNREAD_PUSH_BYTES(
            "grpc.unread-push-bytes",
            32L << 20,
            true,
            "what the node pushed to one gRPC connection that its client has not read; past it the connection is closed"),
    GRPC_LISTENS_PER_CONNECTION(
            "grpc.listens-per-connection",
            10_000,
            false,
            "configs one gRPC connection listens to; a batch listen past it is refused whole"),
    GRPC_SUBSCRIPTIONS_PER_CONNECTION(
            "grpc.subscriptions-per-connection",
            10_000,
            false,
            "services one gRPC connection subscribes to; a subscription past it is refused"),
    DNS_UDP_ANSWERS_PER_SECOND(
            "dns.udp-answers-per-second",
            2_000,
            false,
            "DNS answers a second over UDP to one source network (/24, /56); past it queries go unanswered (0: no limit)"),
    UDP_SUBSCRIBERS(
            "udp.subscribers",
            100_000,
            false,
            "1.x clients' UDP push subscriptions held on this node; past it a client polls instead"),
    UDP_SUBSCRIBERS_PER_ADDRESS(
            "udp.subscribers-per-address",
            5_000,
            false,
            "UDP push subscriptions held for one client address; past it that client polls instead"),
    RAFT_UNPROVEN_CONNECTIONS(
            RaftPortSettings.UNPROVEN_LIMIT,
            256,
            false,
            "Raft port connections that have not proved the cluster secret yet; one more is closed at once"),
    RAFT_UNPROVEN_CONNECTIONS_PER_ADDRESS(
            RaftPortSettings.UNPROVEN_PER_ADDRESS_LIMIT,
            16,
            false,
            "Raft port connections from one address that have not proved the cluster secret yet"),
    LONGPOLL_HELD(
            LongPollRegistry.HELD_LIMIT,
            20_000,
            false,
            "config long-polls held on this node; a further one is answered 429 and the client polls again later"),
    LONGPOLL_HELD_PER_ADDRESS(
            LongPollRegistry.HELD_PER_ADDRESS_LIMIT,
            4_000,
            false,
            "config long-polls held for one client address; a further one is answered 429"),
    QUOTA_CONFIGS_PER_NAMESPACE(
            ConfigService.CONFIGS_PER_NAMESPACE_LIMIT,
            1_000_000,
            false,
            "configs in one namespace; publishing a new one past it is refused, replacing one never is (0: no limit)"),
    QUOTA_NAMESPACES(
            NamespaceService.NAMESPACES_LIMIT,
            1_000,
            false,
            "namespaces created (the public one not counted); creating one past it is refused (0: no limit)"),
    QUOTA_SERVICES_PER_NAMESPACE(
            NamingQuotas.SERVICES_PER_NAMESPACE_LIMIT,
            100_000,
            false,
            "stored service definitions in one namespace; a service or persistent registration past it is refused"
                    + " (0: no limit)"),
    QUOTA_INSTANCES_PER_SERVICE(
            NamingQuotas.INSTANCES_PER_SERVICE_LIMIT,
            10_000,
            false,
            "persistent instances of one service; registering a new one past it is refused (0: no limit)"),
    QUOTA_EPHEMERAL_INSTANCES_PER_SERVICE(
            NamingQuotas.EPHEMERAL_PER_SERVICE_LIMIT,
            10_000,
            false,
            "ephemeral instances of one service, counted by its owner; registering a new one past it is refused"
                    + " (0: no limit)"),
    QUOTA_EPHEMERAL_INSTANCES(
            NamingQuotas.EPHEMERAL_INSTANCES_LIMIT,
            1_000_000,
            false,
            "ephemeral instances a node holds, every service's; registering a new one past it is refused"
                    + " (0: no limit)");

    private final String key;
    private final long defaultValue;
    private final boolean bytes;
    private final String meaning;

    Limit(String key, long defaultValue, boolean bytes, String meaning) {
        this.key = key;
        this.defaultValue = defaultValue;
        this.bytes = bytes;
        this.meaning = meaning;
    }

    /** The name an operator sets it by, and the answers and metrics name it by. */
    public String key() {
        return key;
    }

    public long defaultValue() {
        return defaultValue;
    }

    /** Whether the value is a size, which may be given with KiB, MiB or GiB. */
    public boolean isBytes() {
        return bytes;
    }

    /** The limit named {@code key}. */
    public static Limit byKey(String key) {
        for (Limit l : values()) {
            if (l.key.equals(key)) {
                return l;
            }
        }
        throw new IllegalArgumentException("no limit is named " + key);
    }

    /** What it bounds and what happens past it, for --help and the docs. */
    public String meaning() {
        return meaning;
    }
}
