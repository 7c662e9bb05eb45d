package io.lodestar.api.grpc;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.lodestar.api.answer.NamingJson;
import io.lodestar.api.limits.Limits;
import io.lodestar.api.metrics.Metrics;
import io.lodestar.api.request.NamingOp;
import io.lodestar.naming.ServicePage;
import io.lodestar.naming.model.Instance;
import io.lodestar.naming.model.NamingValidation;
import io.lodestar.naming.model.ServiceKey;
import io.lodestar.naming.query.ServiceView;
import io.lodestar.naming.service.NamingService;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The naming requests of nacos-client 2.x/3.x: register and deregister (one instance per service
 * and connection, or a batch), persistent instances, queries, the service list, and subscriptions.
 * The instances a connection holds are {@link HeldInstances}'; the pushes to subscribers are
 * {@link NamingPushes}'.
 *
 * <p>Failures are answered as {@code ErrorResponse}, as Nacos's naming handlers answer them.
 */
final class NamingRequests implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(NamingRequests.class);

    private final NamingService naming;
    /** Runs the reconcile passes and the push retries. */
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "grpc-naming");
        t.setDaemon(true);
        return t;
    });

    private final HeldInstances held;
    private final NamingPushes pushes;
    private final AutoCloseable subscription;

    NamingRequests(NamingService naming, Metrics metrics, Limits limits) {
        this.naming = naming;
        this.held = new HeldInstances(naming, timer);
        this.pushes =
                new NamingPushes((service, clusters) -> serviceInfo(service, clusters, false), metrics, limits, timer);
        this.subscription = naming.subscribe(pushes::serviceChanged);
    }

    void register(RequestDispatcher dispatcher, Connections connections) {
        dispatcher
                .add("InstanceRequest", null, GrpcParsers::instance, this::instance)
                .add("BatchInstanceRequest", null, GrpcParsers::batch, this::batch)
                .add("PersistentInstanceRequest", null, GrpcParsers::persistentInstance, this::persistent)
                .add("ServiceQueryRequest", null, GrpcParsers::serviceQuery, this::query)
                .add("SubscribeServiceRequest", null, GrpcParsers::subscribe, this::subscribe)
                .add("ServiceListRequest", null, GrpcParsers::serviceList, this::serviceList);
        connections.onClose(c -> {
            pushes.closed(c);
            held.closed(c);
        });
    }

    /**
     * A registration replaces the connection's instance of the service; a deregistration lets go of
     * the instance only if this connection holds it ({@link HeldInstances}).
     */
    private CompletableFuture<Reply> instance(GrpcParsers.InstanceChange op, GrpcRequest.Call call) {
        Instance instance = op.instance();
        CompletableFuture<Void> done = op.register()
                ? held.register(call.connection(), op.service(), instance)
                : held.deregister(call.connection(), op.service(), instance.address());
        String type = op.register() ? "registerInstance" : "deregisterInstance";
        return done.thenApply(v -> Reply.ok("InstanceResponse").with("type", type));
    }

    /**
     * The connection's instances of the service become exactly the batch's ({@code
     * batchRegisterInstance}: the client sends what it keeps, also to deregister some), or lose the
     * batch's ({@code batchDeregisterInstance}, only those this connection holds).
     */
    private CompletableFuture<Reply> batch(NamingOp.Batch op, GrpcRequest.Call call) {
        CompletableFuture<Void> done = op.register()
                ? held.registerAll(call.connection(), op.service(), op.instances())
                : held.deregisterAll(call.connection(), op.service(), op.instances());
        String type = op.register() ? "batchRegisterInstance" : "batchDeregisterInstance";
        return done.thenApply(v -> Reply.ok("BatchInstanceResponse").with("type", type));
    }

    private CompletableFuture<Reply> persistent(GrpcParsers.InstanceChange op, GrpcRequest.Call call) {
        Instance instance = op.instance();
        CompletableFuture<Void> done = op.register()
                ? naming.register(op.service(), instance)
                : naming.deregister(op.service(), instance.cluster(), instance.ip(), instance.port(), false);
        String type = op.register() ? "registerInstance" : "deregisterInstance";
        return done.thenApply(v -> Reply.ok("InstanceResponse").with("type", type));
    }

    private CompletableFuture<Reply> query(GrpcParsers.ServiceQuery op, GrpcRequest.Call call) {
        Reply reply = Reply.ok("QueryServiceResponse");
        reply.body().set("serviceInfo", serviceInfo(op.service(), op.clusters(), op.healthyOnly()));
        return CompletableFuture.completedFuture(reply);
    }

    private CompletableFuture<Reply> subscribe(NamingOp.Subscribe op, GrpcRequest.Call call) {
        ServiceKey service = op.service();
        if (op.subscribe()) {
            pushes.subscribe(call.connection(), service, op.clusters());
        } else {
            pushes.unsubscribe(call.connection(), service);
        }
        Reply reply = Reply.ok("SubscribeServiceResponse");
        // subscribed before reading: a change made meanwhile is pushed rather than missed
        reply.body().set("serviceInfo", serviceInfo(service, op.clusters(), false));
        return CompletableFuture.completedFuture(reply);
    }

    private CompletableFuture<Reply> serviceList(NamingOp.ServiceList op, GrpcRequest.Call call) {
        ServicePage page = naming.listServices(op.namespace(), op.group(), op.pageNo(), op.pageSize());
        Reply reply = Reply.ok("ServiceListResponse");
        reply.body().put("count", page.count());
        ArrayNode names = reply.body().putArray("serviceNames");
        page.names().forEach(names::add);
        return CompletableFuture.completedFuture(reply);
    }

    /** Nacos's ServiceInfo of the service: the 1.x list's fields, with the bare service name. */
    private ObjectNode serviceInfo(ServiceKey service, String clusters, boolean healthyOnly) {
        Set<String> filter = new HashSet<>();
        for (String c : clusters.split(",")) {
            if (!c.isBlank()) {
                NamingValidation.checkCluster("clusters", c.trim());
                filter.add(c.trim());
            }
        }
        ServiceView view = naming.list(service, filter, healthyOnly);
        ObjectNode info = PayloadCodec.JSON.valueToTree(NamingJson.list(view, clusters));
        info.put("name", service.service());
        return info;
    }

    @Override
    public void close() {
        try {
            subscription.close();
        } catch (Exception e) {
            LOG.warn("unsubscribing gRPC naming pushes failed", e);
        }
        timer.shutdownNow();
    }

    HeldInstances held() {
        return held;
    }

    NamingPushes pushes() {
        return pushes;
    }
}
