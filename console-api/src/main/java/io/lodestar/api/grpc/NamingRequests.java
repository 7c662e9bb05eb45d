package io.lodestar.api.grpc;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.lodestar.api.answer.NamingJson;
import io.lodestar.api.metrics.Metrics;
import io.lodestar.api.request.NamingOp;
import io.lodestar.error.InvalidRequestException;
import io.lodestar.naming.ServicePage;
import io.lodestar.naming.SmallSets;
import io.lodestar.naming.model.Instance;
import io.lodestar.naming.model.InstanceAddress;
import io.lodestar.naming.model.NamingValidation;
import io.lodestar.naming.model.ServiceKey;
import io.lodestar.naming.query.ServiceView;
import io.lodestar.naming.service.NamingService;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The naming requests of nacos-client 2.x/3.x: register and deregister (one instance per service
 * and connection, or a batch), persistent instances, queries, the service list, and subscriptions
 * with the {@code NotifySubscriberRequest} push.
 *
 * <p>An ephemeral instance registered here belongs to its connection. It goes into the one
 * registry as a heartbeat instance would (so Distro replicates it, and it is in the HTTP lists, the
 * UDP pushes and DNS), with this node as its holder ({@link NamingService#registerHeld}): it needs
 * no beats while this node lives. When the connection closes this node lets go of it at once
 * (unless the client registered it again elsewhere); when this node dies, the survivors remove it
 * after its beat timeout, unless the client registered it again through another node first. Every
 * {@value #RECONCILE_MS} ms the registry is made to agree with the connections ({@link
 * #reconcile}), which repairs what a lost write or a partition left behind.
 *
 * <p>Failures are answered as {@code ErrorResponse}, as Nacos's naming handlers answer them.
 */
final class NamingRequests implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(NamingRequests.class);
    /** How long a push waits for the client's answer, and how often it is sent at most. */
    static final long PUSH_ACK_MS = 5_000;

    static final int PUSH_TRIES = 3;
    static final long PUSH_RETRY_MS = 1_000;
    /** How often the registry is checked against the connections' instances. */
    static final long RECONCILE_MS = 5_000;

    private final NamingService naming;
    private final Map<Connection, Client> clients = new ConcurrentHashMap<>();
    /** Per service, its subscribers on this node with the clusters each asked for. */
    private final Map<ServiceKey, Map<Client, String>> subscribers = new ConcurrentHashMap<>();
    /**
     * Which connections hold each instance: a connection's close deregisters only what no other
     * holds. The sets are immutable and replaced on change: almost all are of one connection.
     */
    private final Map<HeldKey, Set<Client>> holders = new ConcurrentHashMap<>();
    /** What the last reconcile pass found held here in the registry but by no connection. */
    private Set<HeldKey> unheldLastPass = Set.of(); // the timer thread's own

    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "grpc-naming");
        t.setDaemon(true);
        return t;
    });
    private final AutoCloseable subscription;
    private final Metrics metrics;

    NamingRequests(NamingService naming, Metrics metrics) {
        this.naming = naming;
        this.metrics = metrics;
        this.subscription = naming.subscribe(this::serviceChanged);
        timer.scheduleWithFixedDelay(this::reconcile, RECONCILE_MS, RECONCILE_MS, TimeUnit.MILLISECONDS);
    }

    void register(RequestDispatcher dispatcher, Connections connections) {
        dispatcher
                .add("InstanceRequest", null, GrpcParsers::instance, this::instance)
                .add("BatchInstanceRequest", null, GrpcParsers::batch, this::batch)
                .add("PersistentInstanceRequest", null, GrpcParsers::persistentInstance, this::persistent)
                .add("ServiceQueryRequest", null, GrpcParsers::serviceQuery, this::query)
                .add("SubscribeServiceRequest", null, GrpcParsers::subscribe, this::subscribe)
                .add("ServiceListRequest", null, GrpcParsers::serviceList, this::serviceList);
        connections.onClose(this::closed);
    }

    /** One connection's instances (by service, as the client registered them) and subscriptions. */
    private static final class Client {
        final Connection connection;
        final Map<ServiceKey, Map<InstanceAddress, Held>> instances = new HashMap<>(); // guarded by this
        final Map<ServiceKey, Long> pushed = new ConcurrentHashMap<>(); // the last push sent, per service
        boolean closed; // guarded by this

        Client(Connection connection) {
            this.connection = connection;
        }
    }

    private record HeldKey(ServiceKey service, InstanceAddress address) {}

    /** An instance a connection holds here, and since when (System.nanoTime). */
    private record Held(Instance instance, long sinceNanos) {}

    private Client client(Connection c) {
        return clients.computeIfAbsent(c, Client::new);
    }

    /**
     * A registration replaces the connection's instance of the service (Nacos keeps one per service
     * and connection); a deregistration lets go of the instance only if this connection holds it,
     * as Nacos 2.x releases only its own client's instances: another client's instance, or one kept
     * by beats, is left alone.
     */
    private CompletableFuture<Reply> instance(GrpcParsers.InstanceChange op, GrpcRequest.Call call) {
        ServiceKey service = op.service();
        Instance instance = op.instance();
        Client client = client(call.connection());
        String type = op.register() ? "registerInstance" : "deregisterInstance";
        CompletableFuture<Void> done;
        if (op.register()) {
            Map<InstanceAddress, Instance> replaced = hold(client, service, List.of(instance));
            done = naming.registerHeld(service, instance).thenCompose(v -> releaseAll(service, replaced.values()));
        } else {
            done = release(client, service, instance.address())
                    ? naming.releaseHeld(service, instance.address())
                    : CompletableFuture.completedFuture(null);
        }
        return done.thenApply(v -> Reply.ok("InstanceResponse").with("type", type));
    }

    /**
     * The connection's instances of the service become exactly the batch's ({@code
     * batchRegisterInstance}: the client sends what it keeps, also to deregister some), or lose the
     * batch's ({@code batchDeregisterInstance}, only those this connection holds).
     */
    private CompletableFuture<Reply> batch(NamingOp.Batch op, GrpcRequest.Call call) {
        ServiceKey service = op.service();
        Client client = client(call.connection());
        CompletableFuture<Void> done;
        if (op.register()) {
            Map<InstanceAddress, Instance> dropped = hold(client, service, op.instances());
            CompletableFuture<?>[] registered = op.instances().stream()
                    .map(i -> naming.registerHeld(service, i))
                    .toArray(CompletableFuture[]::new);
            done = CompletableFuture.allOf(registered).thenCompose(v -> releaseAll(service, dropped.values()));
        } else {
            List<Instance> released = op.instances().stream()
                    .filter(i -> release(client, service, i.address()))
                    .toList();
            done = releaseAll(service, released);
        }
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
        Client client = client(call.connection());
        if (op.subscribe()) {
            synchronized (client) {
                if (!client.closed) {
                    subscribers
                            .computeIfAbsent(service, k -> new ConcurrentHashMap<>())
                            .put(client, op.clusters());
                }
            }
        } else {
            unsubscribe(client, service);
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
        Set<String> filter = new java.util.HashSet<>();
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

    /**
     * Records {@code instances} as the connection's instances of {@code service}, returning those it
     * held before and holds no more (to be deregistered).
     */
    private Map<InstanceAddress, Instance> hold(Client client, ServiceKey service, List<Instance> instances) {
        Map<InstanceAddress, Instance> dropped = new HashMap<>();
        synchronized (client) {
            if (client.closed) {
                throw new InvalidRequestException("connection", "is closed");
            }
            Map<InstanceAddress, Held> now = new LinkedHashMap<>();
            for (Instance i : instances) {
                now.put(i.address(), new Held(i, System.nanoTime()));
                holders.merge(
                        new HeldKey(service, i.address()), Set.of(client), (set, one) -> SmallSets.with(set, client));
            }
            Map<InstanceAddress, Held> before = client.instances.put(service, compact(now));
            if (before != null) {
                before.forEach((a, h) -> {
                    if (!now.containsKey(a) && unhold(client, service, a)) {
                        dropped.put(a, h.instance);
                    }
                });
            }
        }
        return dropped;
    }

    /** Forgets that {@code client} holds the instance; true if no other connection holds it now. */
    private boolean unhold(Client client, ServiceKey service, InstanceAddress address) {
        boolean[] last = {true};
        holders.computeIfPresent(new HeldKey(service, address), (k, set) -> {
            Set<Client> rest = SmallSets.without(set, client);
            last[0] = rest.isEmpty();
            return rest.isEmpty() ? null : rest;
        });
        return last[0];
    }

    /** A connection's instances of one service, immutable: almost always one, which Map.of keeps in a few bytes. */
    private static Map<InstanceAddress, Held> compact(Map<InstanceAddress, Held> held) {
        return held.size() == 1 ? Map.copyOf(held) : Collections.unmodifiableMap(held);
    }

    /**
     * Forgets that the connection holds the instance; true if it held it and no other connection
     * here holds it now (so it is to be let go of).
     */
    private boolean release(Client client, ServiceKey service, InstanceAddress address) {
        synchronized (client) {
            Map<InstanceAddress, Held> held = client.instances.get(service);
            if (held == null || !held.containsKey(address)) {
                return false;
            }
            boolean last = unhold(client, service, address);
            Map<InstanceAddress, Held> rest = new LinkedHashMap<>(held);
            rest.remove(address);
            if (rest.isEmpty()) {
                client.instances.remove(service);
            } else {
                client.instances.put(service, compact(rest));
            }
            return last;
        }
    }

    /** Lets go of instances this node held: each goes unless its client registered it again elsewhere. */
    private CompletableFuture<Void> releaseAll(ServiceKey service, java.util.Collection<Instance> instances) {
        return CompletableFuture.allOf(instances.stream()
                .map(i -> naming.releaseHeld(service, i.address()))
                .toArray(CompletableFuture[]::new));
    }

    private void unsubscribe(Client client, ServiceKey service) {
        subscribers.computeIfPresent(service, (k, subs) -> {
            subs.remove(client);
            return subs.isEmpty() ? null : subs;
        });
        client.pushed.remove(service);
    }

    /**
     * The connection closed: its subscriptions are dropped and its instances let go of, unless the
     * server sent its client elsewhere: that client registers them again on another node, and a
     * release from here before that would make them vanish and come back. The reconcile pass lets
     * go of any the client did not take elsewhere.
     */
    private void closed(Connection connection) {
        Client client = clients.remove(connection);
        if (client == null) {
            return;
        }
        Map<ServiceKey, List<Instance>> instances = new HashMap<>();
        synchronized (client) {
            client.closed = true;
            client.instances.forEach((service, held) -> held.forEach((address, h) -> {
                if (unhold(client, service, address)) { // another connection here may hold it too
                    instances.computeIfAbsent(service, k -> new ArrayList<>()).add(h.instance);
                }
            }));
            client.instances.clear();
        }
        for (ServiceKey service : List.copyOf(subscribers.keySet())) {
            unsubscribe(client, service);
        }
        if (connection.sentElsewhere()) {
            return;
        }
        instances.forEach((service, gone) -> releaseAll(service, gone).whenComplete((v, e) -> {
            if (e != null) {
                LOG.warn(
                        "removing the instances of closed {} in {} failed; the next reconcile retries",
                        connection,
                        service,
                        e);
            }
        }));
    }

    /**
     * Makes the registry agree with the connections. An instance a connection has held here for a
     * pass or more that this node's replica does not know (lost to a failed write, removed across
     * a partition) is registered again; one it knows as held here that no connection holds on two
     * passes in a row (a closed connection whose client did not come back, a release that failed,
     * an earlier run of this node) is let go of. An instance another node holds is left alone:
     * its client registered it there.
     */
    private void reconcile() {
        try {
            Set<HeldKey> unheld = new java.util.HashSet<>();
            naming.heldHere()
                    .forEach((service, addresses) -> addresses.forEach(address -> {
                        HeldKey key = new HeldKey(service, address);
                        if (!holders.containsKey(key)) {
                            unheld.add(key);
                        }
                    }));
            for (HeldKey key : unheld) {
                if (unheldLastPass.contains(key)) {
                    naming.releaseHeld(key.service(), key.address())
                            .whenComplete((v, e) -> logFailure("releasing", key, e));
                }
            }
            unheldLastPass = unheld;
            long settled = System.nanoTime() - TimeUnit.MILLISECONDS.toNanos(RECONCILE_MS);
            for (Client client : clients.values()) {
                List<Map.Entry<ServiceKey, Instance>> missing = new ArrayList<>();
                synchronized (client) {
                    // a younger registration may not have reached this node's replica yet
                    client.instances.forEach((service, held) -> held.values().forEach(h -> {
                        Instance i = h.instance();
                        if (h.sinceNanos() - settled < 0
                                && naming.instance(service, i.cluster(), i.ip(), i.port())
                                        .isEmpty()) {
                            missing.add(Map.entry(service, i));
                        }
                    }));
                }
                for (Map.Entry<ServiceKey, Instance> e : missing) {
                    HeldKey key = new HeldKey(e.getKey(), e.getValue().address());
                    naming.registerHeld(e.getKey(), e.getValue())
                            .whenComplete((v, err) -> logFailure("registering again", key, err));
                }
            }
        } catch (RuntimeException e) {
            LOG.warn("reconciling the connections' instances failed; the next pass retries", e);
        }
    }

    private static void logFailure(String what, HeldKey key, Throwable error) {
        if (error != null) {
            LOG.debug("{} {} in {} failed; the next pass retries", what, key.address(), key.service(), error);
        }
    }

    /** Pushes the service's new list to this node's subscribers of it (on the naming notifier thread). */
    private void serviceChanged(ServiceKey service) {
        Map<Client, String> subs = subscribers.get(service);
        if (subs == null || subs.isEmpty()) {
            return;
        }
        Map<String, ObjectNode> infos = new HashMap<>(); // one list per clusters string asked for
        subs.forEach((client, clusters) -> {
            ObjectNode info = infos.computeIfAbsent(clusters, cs -> serviceInfo(service, cs, false));
            long version = System.nanoTime();
            client.pushed.put(service, version);
            push(client, service, info, version, 1);
        });
    }

    private void push(Client client, ServiceKey service, ObjectNode info, long version, int attempt) {
        Connection c = client.connection;
        Reply notice = Reply.push("NotifySubscriberRequest", "naming", c.nextPushId());
        notice.body().set("serviceInfo", info);
        c.push(notice, PUSH_ACK_MS).whenComplete((ok, e) -> {
            if (e == null || c.closed() || attempt >= PUSH_TRIES) {
                return;
            }
            Long latest = client.pushed.get(service);
            if (latest == null || latest != version) {
                return; // unsubscribed, or a newer list went out since
            }
            try {
                timer.schedule(
                        () -> {
                            metrics.grpcPush("NotifySubscriberRequest", "retried");
                            push(client, service, info, version, attempt + 1);
                        },
                        PUSH_RETRY_MS,
                        TimeUnit.MILLISECONDS);
            } catch (java.util.concurrent.RejectedExecutionException stopped) {
                // stopping
            }
        });
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
}
