package io.lodestar.naming.persistent;

import io.lodestar.kv.KvEntry;
import io.lodestar.kv.KvStore;
import io.lodestar.kv.command.Command;
import io.lodestar.kv.command.Compare;
import io.lodestar.kv.command.Op;
import io.lodestar.kv.rmw.ReadModifyWrite;
import io.lodestar.kv.rmw.Step;
import io.lodestar.naming.NamingKeyspaces;
import io.lodestar.naming.NamingQuotas;
import io.lodestar.naming.model.ServiceKey;
import io.lodestar.naming.model.ServiceSpec;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

/**
 * Stored service definitions in the store's {@value NamingKeyspaces#SERVICE} keyspace.
 *
 * <p>Writes complete as {@link KvStore#write} does; read-modify-writes are guarded by the record's
 * revision (0 = absent) and computed again on conflict. Reads are this node's replica. Thread-safe.
 */
public final class ServiceRecords {
    private static final String KEYSPACE = NamingKeyspaces.SERVICE;

    private final KvStore store;
    private final ReadModifyWrite writes;
    private final QuotaCaps caps;

    /**
     * A write that would store one more definition in a namespace than {@code quotas} allow fails
     * with {@link io.lodestar.error.LimitExceededException}, writing nothing; the store must count
     * {@link NamingKeyspaces#COUNTED}.
     */
    public ServiceRecords(KvStore store, NamingQuotas quotas) {
        this.store = store;
        this.writes = new ReadModifyWrite(store);
        this.caps = new QuotaCaps(quotas);
    }

    /**
     * A stored definition with the revision that last wrote it; {@code defined} when the service or
     * cluster API wrote it, false for the default one a persistent registration stores (Nacos 2.x
     * keeps no service metadata for such a service, and applies no protect threshold to it).
     */
    public record StoredSpec(ServiceSpec spec, long modRevision, boolean defined) {}

    /** The definitions stored in {@code namespace}, from the store's counters (no key is read). */
    public long count(String namespace) {
        return store.countedKeys(KEYSPACE, StoreKeys.namespace(namespace));
    }

    /** Whether a definition of {@code service} is stored. */
    public boolean stored(ServiceKey service) {
        return store.get(KEYSPACE, StoreKeys.service(service)) != null;
    }

    public Optional<StoredSpec> get(ServiceKey service) {
        KvEntry e = store.get(KEYSPACE, StoreKeys.service(service));
        if (e == null) {
            return Optional.empty();
        }
        ServiceSpecCodec.Decoded d = ServiceSpecCodec.decode(e.value());
        return Optional.of(new StoredSpec(d.spec(), e.modRevision(), d.defined()));
    }

    /**
     * Stores {@code change} applied to the current definition (empty when there is none) as a defined
     * one. {@code change} may throw to refuse (its exception fails the future, nothing is written); it
     * may run more than once. Completes with the stored spec.
     */
    public CompletableFuture<ServiceSpec> update(
            ServiceKey service, Function<Optional<ServiceSpec>, ServiceSpec> change) {
        return writes.run("service " + service, () -> updateAttempt(service, change));
    }

    private Step<ServiceSpec> updateAttempt(ServiceKey service, Function<Optional<ServiceSpec>, ServiceSpec> change) {
        byte[] key = StoreKeys.service(service);
        KvEntry e = store.get(KEYSPACE, key);
        ServiceSpec next = change.apply(
                e == null
                        ? Optional.empty()
                        : Optional.of(ServiceSpecCodec.decode(e.value()).spec()));
        Command command = Command.of(
                List.of(Compare.modRevision(KEYSPACE, key, e == null ? 0 : e.modRevision())),
                List.of(Op.put(KEYSPACE, key, ServiceSpecCodec.encode(next, true))
                        .withCap(caps.definition(service))));
        return Step.propose(command, next);
    }

    /**
     * Stores {@code spec} only if the service has no definition; completes with whether it did. Not
     * held to the services quota: it puts back a definition just deleted (a delete that raced a
     * registration), which must not fail for the room the delete gave away.
     */
    public CompletableFuture<Boolean> putIfAbsent(ServiceKey service, ServiceSpec spec, boolean defined) {
        return store.write(Command.putIfRevision(
                        KEYSPACE, StoreKeys.service(service), ServiceSpecCodec.encode(spec, defined), 0))
                .thenApply(r -> r.succeeded());
    }

    /** The command deleting the definition if it is still at {@code modRevision}, for a {@link ReadModifyWrite}. */
    public static Command deletion(ServiceKey service, long modRevision) {
        byte[] key = StoreKeys.service(service);
        return Command.of(List.of(Compare.modRevision(KEYSPACE, key, modRevision)), List.of(Op.delete(KEYSPACE, key)));
    }

    /** The services with a definition in a group of a namespace. */
    public List<ServiceKey> inGroup(String namespace, String group) {
        List<ServiceKey> out = new ArrayList<>();
        for (KvEntry e : store.scan(KEYSPACE, StoreKeys.group(namespace, group), Integer.MAX_VALUE)) {
            out.add(StoreKeys.serviceOf(e.key()));
        }
        return out;
    }

    /** Every service with a definition on this node's replica. */
    public List<ServiceKey> all() {
        List<ServiceKey> out = new ArrayList<>();
        for (KvEntry e : store.scan(KEYSPACE, new byte[0], Integer.MAX_VALUE)) {
            out.add(StoreKeys.serviceOf(e.key()));
        }
        return out;
    }
}
