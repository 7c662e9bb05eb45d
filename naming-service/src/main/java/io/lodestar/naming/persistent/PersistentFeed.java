package io.lodestar.naming.persistent;

import io.lodestar.kv.KvStore;
import io.lodestar.kv.feed.ChangeEvent;
import io.lodestar.kv.feed.ChangeListener;
import io.lodestar.naming.NamingKeyspaces;
import io.lodestar.naming.model.ServiceKey;
import java.util.LinkedHashSet;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns this node's store change feed into "service changed" for persistent services: every
 * applied put or delete of a naming key reports its service, on every node (leader or follower),
 * since every node applies every entry. After a resync (the listener fell behind, or a snapshot
 * replaced the store) every service stored now or heard of before is reported, as any of them may
 * have changed (or vanished).
 *
 * <p>Called on a change-feed thread; {@code changed} must not block.
 */
public final class PersistentFeed implements ChangeListener {
    private static final Logger LOG = LoggerFactory.getLogger(PersistentFeed.class);

    private final KvStore store;
    private final Consumer<ServiceKey> changed;
    /** Services heard of since the last resync; touched on the feed thread only (one call at a time). */
    private Set<ServiceKey> seen = new LinkedHashSet<>();

    private final AtomicLong version = new AtomicLong();

    public PersistentFeed(KvStore store, Consumer<ServiceKey> changed) {
        this.store = store;
        this.changed = changed;
    }

    @Override
    public boolean hears(String keyspace) {
        return NamingKeyspaces.ALL.contains(keyspace);
    }

    @Override
    public void onChange(ChangeEvent event) {
        ServiceKey service;
        try {
            service = StoreKeys.serviceOf(event.key());
        } catch (RuntimeException e) {
            // only this module writes these keyspaces; a key it cannot read is a bug, not a reason to stall the feed
            LOG.warn("ignoring unreadable naming key in {} at revision {}", event.keyspace(), event.revision(), e);
            return;
        }
        seen.add(service);
        version.incrementAndGet();
        changed.accept(service);
    }

    @Override
    public void onResync(long fromRevision) {
        Set<ServiceKey> services = new LinkedHashSet<>();
        for (String keyspace : NamingKeyspaces.ALL) {
            store.scan(keyspace, new byte[0], Integer.MAX_VALUE).forEach(e -> {
                try {
                    services.add(StoreKeys.serviceOf(e.key()));
                } catch (RuntimeException ex) {
                    LOG.warn("ignoring unreadable naming key in {}", keyspace, ex);
                }
            });
        }
        Set<ServiceKey> report = new LinkedHashSet<>(seen);
        report.addAll(services);
        seen = services;
        version.incrementAndGet();
        LOG.info(
                "naming change feed resynced from revision {}: reporting {} services as changed",
                fromRevision,
                report.size());
        report.forEach(changed);
    }

    /**
     * Changes with every event and resync this feed has heard: while it stays the same, this
     * node's persistent instances and service specs are as they were when it was last read.
     */
    public long version() {
        return version.get();
    }
}
