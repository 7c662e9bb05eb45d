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
import io.lodestar.naming.model.Instance;
import io.lodestar.naming.model.InstanceAddress;
import io.lodestar.naming.model.ServiceKey;
import io.lodestar.naming.model.ServiceSpec;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.BinaryOperator;
import java.util.function.UnaryOperator;

/**
 * Persistent instances in the store's {@value NamingKeyspaces#INSTANCE} keyspace, one key each.
 *
 * <p>Writes go through {@link KvStore#write} and complete as it does (durable on a majority and
 * applied on this node, so a read here sees them). Read-modify-writes are guarded by the key's
 * revision and computed again when another write got there first. Reads are this node's replica.
 * Thread-safe.
 */
public final class PersistentInstances {
    private static final String KEYSPACE = NamingKeyspaces.INSTANCE;

    private final KvStore store;
    private final ReadModifyWrite writes;
    private final QuotaCaps caps;

    /**
     * A registration that would store one more instance in a service, or one more service definition
     * in a namespace, than {@code quotas} allow fails with {@link
     * io.lodestar.error.LimitExceededException}, writing nothing; the store must count {@link
     * NamingKeyspaces#COUNTED}.
     */
    public PersistentInstances(KvStore store, NamingQuotas quotas) {
        this.store = store;
        this.writes = new ReadModifyWrite(store);
        this.caps = new QuotaCaps(quotas);
    }

    /** An instance with the service it belongs to. */
    public record Stored(ServiceKey service, Instance instance) {}

    /** A completed edit: the instance before and after (equal when there was nothing to write). */
    public record Edit(Instance before, Instance after) {
        public boolean changed() {
            return !before.equals(after);
        }
    }

    public Optional<Instance> get(ServiceKey service, InstanceAddress address) {
        KvEntry e = store.get(KEYSPACE, StoreKeys.instance(service, address));
        return e == null ? Optional.empty() : Optional.of(InstanceCodec.decode(address, e.value()));
    }

    /** The service's instances in key order (cluster, ip, port as text). */
    public List<Instance> list(ServiceKey service) {
        List<Instance> out = new ArrayList<>();
        for (KvEntry e : store.scan(KEYSPACE, StoreKeys.instancesOf(service), Integer.MAX_VALUE)) {
            out.add(InstanceCodec.decode(StoreKeys.addressOf(e.key()), e.value()));
        }
        return out;
    }

    public boolean any(ServiceKey service) {
        return !store.scan(KEYSPACE, StoreKeys.instancesOf(service), 1).isEmpty();
    }

    /** Every persistent instance on this node's replica. Reads (and decodes) the whole keyspace. */
    public List<Stored> all() {
        List<Stored> out = new ArrayList<>();
        for (KvEntry e : store.scan(KEYSPACE, new byte[0], Integer.MAX_VALUE)) {
            out.add(new Stored(
                    StoreKeys.serviceOf(e.key()), InstanceCodec.decode(StoreKeys.addressOf(e.key()), e.value())));
        }
        return out;
    }

    /** The number of persistent instances, from the store's counters: one read per service that has any. */
    public int count() {
        return (int) Math.min(Integer.MAX_VALUE, store.countedKeys(KEYSPACE, new byte[0]));
    }

    /**
     * Creates or replaces {@code instance} (which must be persistent and carry its id). If the
     * service has no stored definition, the same command stores the default one, guarded on its
     * absence; otherwise the command is guarded on the definition's revision, so a concurrent delete
     * of the service makes it start over (and define the service again). {@code precheck} runs
     * before every attempt and may throw to refuse (e.g. a service holding ephemeral instances);
     * its exception fails the future and nothing is written. An instance already at the address is
     * replaced by {@code replacing.apply(old, instance)}; if that is what is stored already, nothing
     * is written (once the replica is confirmed current).
     */
    public CompletableFuture<Void> put(
            ServiceKey service, Instance instance, Runnable precheck, BinaryOperator<Instance> replacing) {
        if (instance.ephemeral() || instance.instanceId() == null) {
            throw new IllegalArgumentException("only persistent instances with an id are stored");
        }
        return writes.run("service " + service, () -> putAttempt(service, instance, precheck, replacing));
    }

    private Step<Void> putAttempt(
            ServiceKey service, Instance instance, Runnable precheck, BinaryOperator<Instance> replacing) {
        precheck.run();
        byte[] serviceKey = StoreKeys.service(service);
        byte[] instanceKey = StoreKeys.instance(service, instance.address());
        KvEntry definition = store.get(NamingKeyspaces.SERVICE, serviceKey);
        KvEntry old = store.get(KEYSPACE, instanceKey);
        List<Compare> compares = new ArrayList<>(2);
        List<Op> ops = new ArrayList<>(2);
        if (definition == null) {
            compares.add(Compare.modRevision(NamingKeyspaces.SERVICE, serviceKey, 0));
            ops.add(Op.put(NamingKeyspaces.SERVICE, serviceKey, ServiceSpecCodec.encode(ServiceSpec.DEFAULT, false))
                    .withCap(caps.definition(service)));
        } else {
            compares.add(Compare.modRevision(NamingKeyspaces.SERVICE, serviceKey, definition.modRevision()));
        }
        // guarded on the replaced instance too, so a health change made meanwhile is not overwritten unseen
        compares.add(Compare.modRevision(KEYSPACE, instanceKey, old == null ? 0 : old.modRevision()));
        Instance stored = old == null
                ? instance
                : replacing.apply(InstanceCodec.decode(instance.address(), old.value()), instance);
        byte[] encoded = InstanceCodec.encode(stored);
        if (definition != null && old != null && Arrays.equals(encoded, old.value())) {
            // What is stored already: write nothing (no log entry, revision, change event or push to
            // subscribers), as for a client re-registering on restart. This replica may lag (a
            // deregistration another node acknowledged not applied here yet), so that answer is given
            // only on a copy confirmed current by a ReadIndex; otherwise it is decided again on one.
            return Step.answerIfCurrent(null);
        }
        ops.add(Op.put(KEYSPACE, instanceKey, encoded).withCap(caps.instance(service)));
        return Step.propose(Command.of(compares, ops), null);
    }

    /** Removes the instance; proposed even if this replica does not have it (it may lag). Idempotent. */
    public CompletableFuture<Void> remove(ServiceKey service, InstanceAddress address) {
        return store.write(Command.delete(KEYSPACE, StoreKeys.instance(service, address)))
                .thenApply(r -> null);
    }

    /**
     * Replaces the instance by {@code change} applied to it, guarded by its revision. Completes with
     * the edit (nothing is written when {@code change} returns an equal instance), or with empty if
     * the instance does not exist. An exception from {@code change} fails the future.
     */
    public CompletableFuture<Optional<Edit>> modify(
            ServiceKey service, InstanceAddress address, UnaryOperator<Instance> change) {
        return writes.run("instance " + address, () -> modifyAttempt(service, address, change));
    }

    private Step<Optional<Edit>> modifyAttempt(
            ServiceKey service, InstanceAddress address, UnaryOperator<Instance> change) {
        byte[] key = StoreKeys.instance(service, address);
        KvEntry e = store.get(KEYSPACE, key);
        if (e == null) {
            return Step.answer(Optional.empty());
        }
        Instance before = InstanceCodec.decode(address, e.value());
        Instance after = change.apply(before);
        if (!after.address().equals(address) || after.ephemeral()) {
            throw new IllegalArgumentException("an edit may not move an instance or change its kind");
        }
        Optional<Edit> edit = Optional.of(new Edit(before, after));
        if (after.equals(before)) {
            return Step.answer(edit);
        }
        return Step.propose(Command.putIfRevision(KEYSPACE, key, InstanceCodec.encode(after), e.modRevision()), edit);
    }
}
