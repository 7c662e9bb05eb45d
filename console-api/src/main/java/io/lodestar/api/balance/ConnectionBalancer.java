package io.lodestar.api.balance;

import io.lodestar.api.grpc.GrpcApi;
import io.lodestar.api.metrics.Metrics;
import io.lodestar.kv.KvStore;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BooleanSupplier;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Evens out nacos-client connections across the members, so that clients that piled onto the
 * members that stayed up during a rolling restart spread out again without an operator's {@code
 * reloadCurrent}. Every {@link #ROUND_MS} it gathers the members' loads ({@link LoadReports}),
 * decides with {@link BalancePlan}, and sends the clients the plan moves with {@code
 * ConnectResetRequest} naming the target member; each client then connects there and redoes its
 * listens, subscriptions and registrations, as nacos-client does after any reconnect.
 *
 * <p>Nothing moves while this node is not ready, to a member that is not ready, or with the
 * balance off (then it still gathers, for {@link #connectionsByMember}). Rounds run on one thread
 * of their own, one at a time: a round waits for its gather before the next is scheduled.
 */
public final class ConnectionBalancer implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ConnectionBalancer.class);
    /** Time between rounds. */
    public static final long ROUND_MS = 2_000;
    /** How long a member has to report its load. */
    static final long REPORT_DEADLINE_MS = 1_000;
    /**
     * A client set up more recently is not moved: it may still be redoing its subscriptions, and
     * one that was just moved here is not bounced on by a round that saw older numbers.
     */
    static final long MIN_CONNECTION_AGE_MS = 5_000;
    /** Where nacos-client looks for a server's gRPC port, from the HTTP port it was given. */
    static final int GRPC_OFFSET = 1000;

    private final BalanceSettings settings;
    private final LoadReports reports;
    private final GrpcApi grpc;
    private final BooleanSupplier ready;
    private final Metrics metrics;
    private final String self;
    private volatile boolean closed;
    private final ScheduledExecutorService rounds = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "connection-balance");
        t.setDaemon(true);
        return t;
    });
    private volatile Map<String, Integer> lastCounts = Map.of();
    private boolean draining; // the rounds' thread's own: the last round moved clients
    private String sharedHostWarned; // the rounds' thread's own: the shared host last warned of

    /**
     * Answers the other members' load questions from now on; {@link #start} starts the rounds.
     * {@code selfHttpAddress} is where clients are sent to reach this node; {@code ready} whether
     * it may take clients and send them away.
     */
    public ConnectionBalancer(
            BalanceSettings settings,
            KvStore store,
            GrpcApi grpc,
            BooleanSupplier ready,
            Metrics metrics,
            String selfHttpAddress,
            int httpPort) {
        this.settings = settings;
        this.grpc = grpc;
        this.ready = ready;
        this.metrics = metrics;
        this.self = store.cluster().self();
        boolean redirectable = grpc.port() == httpPort + GRPC_OFFSET;
        if (!redirectable) {
            LOG.warn(
                    "connection balance: this node takes no part (no clients sent here, none sent away): its gRPC"
                            + " port {} is not its HTTP port + {}, where a client sent here would look",
                    grpc.port(),
                    GRPC_OFFSET);
        }
        // a closing node reports itself not ready, so that no member sends it clients while it stops
        this.reports = new LoadReports(
                        store,
                        () -> new LoadReports.Own(
                                grpc.servedConnections(), !closed && ready.getAsBoolean(), redirectable),
                        selfHttpAddress,
                        REPORT_DEADLINE_MS)
                .serve();
        metrics.grpcConnectionsBalanced(0); // listed from the start, at 0
    }

    /** Starts the rounds. */
    public ConnectionBalancer start() {
        rounds.scheduleWithFixedDelay(this::round, ROUND_MS, ROUND_MS, TimeUnit.MILLISECONDS);
        LOG.info(
                "connection balance {}: slack {}%, at least {} over the even share, up to {} clients a second",
                settings.on() ? "on" : "off (counts only)",
                settings.slackPercent(),
                settings.minExcess(),
                settings.movesPerSecond());
        return this;
    }

    /** The connections each member reported in the last round, by Raft address; a member that did not is absent. */
    public Map<String, Integer> connectionsByMember() {
        return lastCounts;
    }

    private void round() {
        try {
            List<MemberLoad> loads = reports.gather().get(REPORT_DEADLINE_MS + 2_000, TimeUnit.MILLISECONDS);
            lastCounts =
                    loads.stream().collect(Collectors.toUnmodifiableMap(MemberLoad::member, MemberLoad::connections));
            if (!settings.on() || closed || !ready.getAsBoolean()) {
                draining = false;
                return;
            }
            String shared = sharedHost(loads);
            if (shared != null) {
                if (!shared.equals(sharedHostWarned)) {
                    LOG.warn(
                            "connection balance paused: several members serve at {}, and nacos-client sent to one"
                                    + " of them connects to the first of its servers at that address instead",
                            shared);
                    sharedHostWarned = shared;
                }
                draining = false;
                return;
            }
            int budget = (int) Math.max(1, settings.movesPerSecond() * ROUND_MS / 1000);
            BalancePlan plan =
                    BalancePlan.decide(self, loads, settings.slackPercent(), settings.minExcess(), budget, draining);
            if (plan.moves().isEmpty()) {
                draining = false;
                LOG.debug(
                        "connection balance: {} here, share {}, threshold {}",
                        plan.held(),
                        plan.share(),
                        plan.threshold());
                return;
            }
            int sent = 0;
            StringBuilder where = new StringBuilder();
            for (BalancePlan.Move move : plan.moves()) {
                MemberLoad target = move.target();
                int colon = target.httpAddress().lastIndexOf(':');
                GrpcApi.Redirect to = new GrpcApi.Redirect(
                        target.httpAddress().substring(0, colon),
                        Integer.parseInt(target.httpAddress().substring(colon + 1)));
                int n = grpc.moveNewest(
                        move.count(),
                        to,
                        MIN_CONNECTION_AGE_MS,
                        "connection balance: " + plan.held() + " here, the even share is " + plan.share());
                sent += n;
                where.append(where.length() == 0 ? "" : ", ")
                        .append(n)
                        .append(" to ")
                        .append(target.httpAddress())
                        .append(" (")
                        .append(target.connections())
                        .append(")");
            }
            draining = sent > 0;
            metrics.grpcConnectionsBalanced(sent);
            LOG.info(
                    "connection balance: {} clients here, threshold {} (share {} of {} over {} ready members):"
                            + " sent {}{}",
                    plan.held(),
                    plan.threshold(),
                    plan.share(),
                    loads.stream()
                            .filter(MemberLoad::ready)
                            .mapToInt(MemberLoad::connections)
                            .sum(),
                    loads.stream().filter(MemberLoad::ready).count(),
                    sent,
                    sent == 0 ? " (none set up long enough or none under the share)" : ": " + where);
        } catch (TimeoutException e) {
            LOG.debug("connection balance: the members' loads did not come in time");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Exception e) {
            LOG.warn("connection balance round failed", e);
        }
    }

    /** A host two members' HTTP addresses share, or null: clients cannot be sent to one of them. */
    static String sharedHost(List<MemberLoad> loads) {
        Set<String> hosts = new HashSet<>();
        for (MemberLoad l : loads) {
            String host = l.httpAddress().substring(0, l.httpAddress().lastIndexOf(':'));
            if (!hosts.add(host)) {
                return host;
            }
        }
        return null;
    }

    @Override
    public void close() {
        closed = true;
        rounds.shutdownNow();
    }
}
