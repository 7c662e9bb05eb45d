package io.lodestar.naming.service;

import io.lodestar.kv.KvStore;
import io.lodestar.naming.distro.Distro;
import io.lodestar.naming.distro.DistroRing;
import io.lodestar.naming.ephemeral.EphemeralRegistry;
import io.lodestar.naming.ephemeral.HeartbeatMonitor;
import io.lodestar.naming.model.ServiceKey;
import io.lodestar.naming.notify.ChangeNotifier;
import io.lodestar.naming.persistent.PersistentFeed;
import io.lodestar.naming.persistent.PersistentInstances;
import io.lodestar.naming.persistent.ServiceRecords;
import java.time.Clock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Builds the naming domain's parts on one store and tears down what runs (the change-feed
 * subscription, Distro, the heartbeat monitor, notifications) in the reverse order it started
 * them. The store stays open: it is the caller's.
 */
final class NamingModule implements AutoCloseable {
    // the registry's logger, so that its log lines keep their name
    private static final Logger LOG = LoggerFactory.getLogger(NamingService.class);
    /** Change-feed events buffered for the registry before it falls back to a resync. */
    static final int FEED_CAPACITY = 65_536;

    private final ChangeNotifier notifier = new ChangeNotifier();
    final EphemeralRegistry ephemeral;
    final ServiceRecords records;
    final PersistentInstances persistent;
    private final AutoCloseable feedSubscription;
    final Distro distro;
    private final HeartbeatMonitor monitor;

    final InstanceWrites writes;
    final Heartbeats heartbeats;
    final ServiceCatalog catalog;
    final InstanceQueries queries;
    final ProbedInstances probed;
    final EphemeralQuotas ephemeralQuotas;

    NamingModule(KvStore store, NamingOptions options, Clock clock, boolean scheduleHeartbeatChecks) {
        this.ephemeral = new EphemeralRegistry(clock, options.expiryRules(), this::ephemeralChanged);
        this.persistent = new PersistentInstances(store, options.quotas());
        this.records = new ServiceRecords(store, options.quotas());
        AbsenceConfirmation absence = new AbsenceConfirmation(store);
        OneKindRule oneKind = new OneKindRule(ephemeral, persistent);
        this.ephemeralQuotas = new EphemeralQuotas(ephemeral, options.quotas());
        LocalEphemeralWrites local = new LocalEphemeralWrites(ephemeral, oneKind, ephemeralQuotas);
        PersistentFeed persistentFeed = new PersistentFeed(store, notifier::changed);

        this.feedSubscription = store.subscribe(persistentFeed, FEED_CAPACITY);
        this.distro = new Distro(
                        store.peers(), new DistroRing(store::cluster), ephemeral, local::apply, options.distro())
                .start();
        this.monitor = new HeartbeatMonitor(ephemeral, distro::responsible, distro::live);

        this.catalog = new ServiceCatalog(store, records, ephemeral, persistent, absence);
        this.writes = new InstanceWrites(ephemeral, persistent, distro, catalog, oneKind, absence);
        this.heartbeats = new Heartbeats(ephemeral, persistent, distro, monitor);
        this.queries = new InstanceQueries(clock, store, ephemeral, persistent, records);
        this.probed = new ProbedInstances(ephemeral, persistent, catalog, persistentFeed, absence);
        if (scheduleHeartbeatChecks) {
            monitor.start();
        }
    }

    ChangeNotifier notifier() {
        return notifier;
    }

    Distro distro() {
        return distro;
    }

    private void ephemeralChanged(ServiceKey service) {
        notifier.changed(service);
        if (distro != null) { // null only while the constructor runs, before any mutation
            distro.changed(service);
        }
    }

    /** Stops the heartbeat monitor, Distro, the change-feed subscription and notifications, in that order. */
    @Override
    public void close() {
        monitor.close();
        distro.close();
        try {
            feedSubscription.close();
        } catch (Exception e) {
            LOG.warn("unsubscribing the naming registry from the change feed failed", e);
        }
        notifier.close();
    }
}
