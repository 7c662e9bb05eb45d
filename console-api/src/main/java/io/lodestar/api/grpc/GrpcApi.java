package io.lodestar.api.grpc;

import io.grpc.Context;
import io.grpc.Contexts;
import io.grpc.MethodDescriptor;
import io.grpc.Server;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.ServerServiceDefinition;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.protobuf.ProtoUtils;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.ServerCalls;
import io.lodestar.api.auth.AccessRules;
import io.lodestar.api.grpc.wire.Payload;
import io.lodestar.api.limits.Limit;
import io.lodestar.api.limits.Limits;
import io.lodestar.api.metrics.Metrics;
import io.lodestar.api.request.RequestChecks;
import io.lodestar.api.tls.ServerTls;
import io.lodestar.config.ConfigKey;
import io.lodestar.config.listen.ConfigListener;
import io.lodestar.config.listen.LongPollRegistry;
import io.lodestar.config.push.PushHub;
import io.lodestar.config.service.ConfigService;
import io.lodestar.kv.KvStore;
import io.lodestar.naming.model.InstanceAddress;
import io.lodestar.naming.model.ServiceKey;
import io.lodestar.naming.service.NamingService;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The gRPC API for nacos-client 2.x/3.x: Nacos's {@code Request/request} (unary) and {@code
 * BiRequestStream/requestBiStream} services on one port, every call bound to the HTTP/2 connection
 * it came on. Requests take the {@link RequestDispatcher}'s one path; pushes leave on the
 * connection's bi-stream.
 */
public final class GrpcApi implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(GrpcApi.class);
    private static final Context.Key<Connection> CALLER = Context.key("lodestar.grpc.connection");
    private static final MethodDescriptor.Marshaller<Payload> PAYLOAD =
            ProtoUtils.marshaller(Payload.getDefaultInstance());

    private final Server server;
    /** The threads calls are handled on, and their answers sent from (grpc-java's default is the same kind of pool). */
    private final ExecutorService calls;

    private final Connections connections;

    private final ConfigRequests config;
    private final NamingRequests naming;

    private GrpcApi(
            Server server,
            ExecutorService calls,
            Connections connections,
            ConfigRequests config,
            NamingRequests naming) {
        this.server = server;
        this.calls = calls;
        this.connections = connections;
        this.config = config;
        this.naming = naming;
    }

    /** The domain services the gRPC API answers from, built once by the composition root. */
    public record Services(
            KvStore store,
            ConfigService configs,
            LongPollRegistry listeners,
            PushHub push,
            NamingService naming,
            Metrics metrics) {}

    /**
     * Starts serving on {@code host:port} (0: any free port), within {@code limits}: a client
     * connecting while {@link Limit#GRPC_CONNECTIONS} are set up is sent elsewhere. TLS only with
     * {@code tls}, plaintext when it is null.
     */
    public static GrpcApi start(
            String host, int port, Limits limits, RequestChecks checks, Services services, ServerTls tls)
            throws IOException {
        Connections connections = new Connections(services.metrics(), limits);
        ExecutorService calls = Executors.newCachedThreadPool(GrpcApi::callThread);
        RequestDispatcher dispatcher = new RequestDispatcher(checks, services.metrics(), calls);
        dispatcher.add(
                "HealthCheckRequest", null, r -> CompletableFuture.completedFuture(Reply.ok("HealthCheckResponse")));
        ConfigRequests config = new ConfigRequests(
                services.store(),
                services.configs(),
                services.listeners(),
                services.push(),
                services.metrics(),
                limits);
        config.register(dispatcher, connections);
        NamingRequests naming = new NamingRequests(services.naming(), services.metrics(), limits);
        naming.register(dispatcher, connections);
        AccessRules.requireDeclared(dispatcher.types(), dispatcher.typedTypes());
        ServerServiceDefinition unary = ServerServiceDefinition.builder("Request")
                .addMethod(
                        MethodDescriptor.<Payload, Payload>newBuilder()
                                .setType(MethodDescriptor.MethodType.UNARY)
                                .setFullMethodName("Request/request")
                                .setRequestMarshaller(PAYLOAD)
                                .setResponseMarshaller(PAYLOAD)
                                .build(),
                        ServerCalls.asyncUnaryCall((payload, out) -> dispatcher
                                .dispatch(CALLER.get(), payload)
                                .whenComplete((reply, e) -> {
                                    if (e != null) { // the dispatcher answers every failure; this is a bug
                                        LOG.error("gRPC request failed", e);
                                        out.onError(io.grpc.Status.INTERNAL
                                                .withDescription("internal error")
                                                .asRuntimeException());
                                        return;
                                    }
                                    out.onNext(reply);
                                    out.onCompleted();
                                })))
                .build();
        ServerServiceDefinition stream = ServerServiceDefinition.builder("BiRequestStream")
                .addMethod(
                        MethodDescriptor.<Payload, Payload>newBuilder()
                                .setType(MethodDescriptor.MethodType.BIDI_STREAMING)
                                .setFullMethodName("BiRequestStream/requestBiStream")
                                .setRequestMarshaller(PAYLOAD)
                                .setResponseMarshaller(PAYLOAD)
                                .build(),
                        ServerCalls.asyncBidiStreamingCall(out ->
                                new BiStream(CALLER.get(), connections, (ServerCallStreamObserver<Payload>) out)))
                .build();
        NettyServerBuilder builder = NettyServerBuilder.forAddress(new InetSocketAddress(host, port));
        if (tls != null) {
            builder.sslContext(tls.forGrpc());
        }
        Server server = builder.executor(calls)
                .addTransportFilter(connections)
                .intercept(new ServerInterceptor() {
                    @Override
                    public <Q, A> ServerCall.Listener<Q> interceptCall(
                            ServerCall<Q, A> call, io.grpc.Metadata headers, ServerCallHandler<Q, A> next) {
                        Connection c = call.getAttributes().get(Connections.CONNECTION);
                        return Contexts.interceptCall(Context.current().withValue(CALLER, c), call, headers, next);
                    }
                })
                .addService(unary)
                .addService(stream)
                .maxInboundMessageSize(limits.intValue(Limit.GRPC_MESSAGE_BYTES))
                .maxConcurrentCallsPerConnection(limits.intValue(Limit.GRPC_STREAMS_PER_CONNECTION))
                .maxRstFramesPerWindow(limits.intValue(Limit.GRPC_RESETS_PER_10S), 10)
                // the clients ping every 6 minutes; refusing that would make the server close them
                .permitKeepAliveTime(1, TimeUnit.MINUTES)
                .permitKeepAliveWithoutCalls(true)
                .build();
        try {
            server.start();
        } catch (IOException e) {
            connections.close();
            config.close();
            naming.close();
            calls.shutdown();
            throw e;
        }
        return new GrpcApi(server, calls, connections, config, naming);
    }

    /** The port served. */
    public int port() {
        return server.getPort();
    }

    /** Connections set up and not closed. */
    public int connections() {
        return connections.registeredCount();
    }

    /** The connections set up here by id, for operators: the client's address, version and labels. */
    public Map<String, Map<String, Object>> describeConnections() {
        Map<String, Map<String, Object>> byId = new LinkedHashMap<>();
        for (Connection c : connections.all()) {
            if (c.registered() && !c.closed()) {
                Map<String, Object> d = new LinkedHashMap<>();
                d.put("connectionId", c.id());
                d.put("clientIp", c.remoteIp());
                d.put("clientPort", c.remotePort());
                d.put("version", c.setup().clientVersion());
                d.put("labels", c.setup().labels());
                d.put("lastActiveTime", c.lastActive());
                byId.put(c.id(), d);
            }
        }
        return byId;
    }

    /** A client connected here, for operators: {@code ip:port} from the socket, and what it said of itself. */
    public record Client(String address, String connectionId, String version, Map<String, String> labels) {
        static Client of(Connection c) {
            Connection.Setup setup = c.setup();
            return new Client(
                    c.remoteIp().indexOf(':') >= 0
                            ? "[" + c.remoteIp() + "]:" + c.remotePort()
                            : c.remoteIp() + ":" + c.remotePort(),
                    c.id(),
                    setup == null ? null : setup.clientVersion(),
                    setup == null ? Map.of() : setup.labels());
        }
    }

    /** The connections listening to {@code key} here, each with the MD5 its last listen said it holds. */
    public List<ConfigListener> configListeners(ConfigKey key) {
        return config.listeners(key);
    }

    /** Every key the connections from {@code clientIp} listen to here. */
    public List<ConfigListener> configListenersAt(String clientIp) {
        return config.listenersAt(clientIp);
    }

    /** The clients subscribed to {@code service} here, each with the clusters it asked for. */
    public Map<Client, String> subscribers(ServiceKey service) {
        Map<Client, String> out = new LinkedHashMap<>();
        naming.pushes().subscribers(service).forEach((c, clusters) -> {
            if (!c.closed()) {
                out.put(Client.of(c), clusters);
            }
        });
        return out;
    }

    /** The clients whose connections hold each of {@code service}'s instances here. */
    public Map<InstanceAddress, List<Client>> holders(ServiceKey service) {
        Map<InstanceAddress, List<Client>> out = new HashMap<>();
        naming.held()
                .holders(service)
                .forEach((address, connections) ->
                        out.put(address, connections.stream().map(Client::of).toList()));
        return out;
    }

    /** Another server's HTTP address, where a client is sent; it derives the gRPC port from it. */
    public record Redirect(String host, int port) {}

    /**
     * Sends clients to other servers until at most {@code keep} are connected here: to {@code
     * redirect} if not null, else each to another of the servers it knows. Returns how many were sent.
     */
    public int shed(int keep, Redirect redirect) {
        return connections.shed(keep, redirect);
    }

    /**
     * Connections set up here that are not being sent elsewhere: what this node counts as its load
     * when the members compare theirs (a client already sent away is on its way to another).
     */
    public int servedConnections() {
        return connections.movableCount();
    }

    /**
     * Sends up to {@code count} clients to {@code redirect}, the newest set up at least {@code
     * minAgeMs} ago first; returns how many were sent. For the connection balancer.
     */
    public int moveNewest(int count, Redirect redirect, long minAgeMs, String why) {
        return connections.moveNewest(count, redirect, minAgeMs, why);
    }

    /** Sends the client of connection {@code id} elsewhere, as {@link #shed} does; false if no such connection is set up. */
    public boolean sendElsewhere(String id, Redirect redirect) {
        Connection c = connections.get(id);
        if (c == null || !c.registered() || c.closed() || c.sentElsewhere()) {
            return false;
        }
        connections.reset(c, redirect, "an operator asked for it");
        return true;
    }

    /**
     * Sends every client elsewhere ({@code ConnectResetRequest}: it reconnects to another server it
     * knows and registers its instances there, so they are not deregistered here), waits up to
     * {@link Connections#RESET_WAIT_MS} for their answers, then stops.
     */
    @Override
    public void close() {
        List<CompletableFuture<Void>> answers = connections.all().stream()
                .filter(c -> c.registered() && !c.closed())
                .map(c -> connections.reset(c, null, "the server is stopping"))
                .toList();
        LOG.info("stopping gRPC: sending {} clients to other servers", answers.size());
        try {
            CompletableFuture.allOf(answers.toArray(CompletableFuture[]::new))
                    .get(Connections.RESET_WAIT_MS + 500, TimeUnit.MILLISECONDS);
        } catch (Exception e) {
            LOG.info("not every gRPC client acknowledged its reset within {} ms", Connections.RESET_WAIT_MS);
        } finally {
            for (Connection c : List.copyOf(connections.all())) {
                connections.close(c, "the server is stopping");
            }
            connections.close();
            config.close();
            naming.close();
            server.shutdown();
            try {
                if (!server.awaitTermination(2, TimeUnit.SECONDS)) {
                    server.shutdownNow();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                server.shutdownNow();
            }
            calls.shutdown();
        }
    }

    private static final AtomicInteger CALL_THREADS = new AtomicInteger();

    private static Thread callThread(Runnable r) {
        Thread t = new Thread(r, "grpc-call-" + CALL_THREADS.incrementAndGet());
        t.setDaemon(true);
        return t;
    }
}
