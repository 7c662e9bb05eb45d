package io.lodestar.config.namespace;

import io.lodestar.config.ConfigKey;
import io.lodestar.config.ConfigKeyspaces;
import io.lodestar.error.InvalidRequestException;
import io.lodestar.kv.KvEntry;
import io.lodestar.kv.KvStore;
import io.lodestar.kv.command.Cap;
import io.lodestar.kv.command.Command;
import io.lodestar.kv.command.Compare;
import io.lodestar.kv.command.Op;
import io.lodestar.kv.rmw.ReadModifyWrite;
import io.lodestar.kv.rmw.Step;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;

/**
 * Creates, lists, edits and deletes namespaces in the store's {@value #KEYSPACE} keyspace, keyed by
 * id, with Nacos's rules: an id of letters, digits, {@code _} and {@code -} (at most 128), a name
 * without control characters or any of {@code @#$%^&*} (at most 128), a description of at most 256.
 * The public namespace (empty id) always exists, is never stored and cannot be edited or deleted.
 *
 * <p>Bad input is rejected with {@link InvalidRequestException} thrown before anything is proposed;
 * its field is the Nacos parameter name. Writes complete as {@link KvStore#write} does; reads
 * (including config counts) are this node's replica.
 *
 * <p>Config counts are the store's counters ({@link ConfigKeyspaces#COUNTED}): one read per
 * namespace, whatever it holds. A create past {@code maxNamespaces} created namespaces fails with
 * {@link io.lodestar.error.LimitExceededException} naming {@value #NAMESPACES_LIMIT}.
 */
public final class NamespaceService {
    public static final String KEYSPACE = ConfigKeyspaces.NAMESPACE;
    /** Reserved: Nacos 2.x clients and scripts use it as another name of the public namespace. */
    public static final String PUBLIC_ALIAS = "public";
    /** The quota on created namespaces, as an operator sets it and a refusal names it. */
    public static final String NAMESPACES_LIMIT = "quota.namespaces";

    static final int MAX_ID = 128;
    static final int MAX_NAME = 128;
    static final int MAX_DESC = 256;
    private static final String NAME_FORBIDDEN = "@#$%^&*";
    private static final int UPDATE_ATTEMPTS = 5;

    private final KvStore store;
    private final ReadModifyWrite updates;
    private final Cap quota;

    /** Without a quota on namespaces (as many as a long counts). */
    public NamespaceService(KvStore store) {
        this(store, Long.MAX_VALUE);
    }

    /** The store must count {@link ConfigKeyspaces#COUNTED}. */
    public NamespaceService(KvStore store, long maxNamespaces) {
        this.store = store;
        this.updates = new ReadModifyWrite(store, UPDATE_ATTEMPTS);
        this.quota = Cap.of(NAMESPACES_LIMIT, maxNamespaces, "there is no room for another namespace");
    }

    /**
     * Creates the namespace {@code id} (a random UUID when null or blank; trimmed otherwise). Completes
     * with true once durable, or false, writing nothing, when the id already exists (decided by the
     * leader at apply time, so of two concurrent creates exactly one wins); fails with {@link
     * io.lodestar.error.LimitExceededException}, writing nothing, when the quota is reached.
     */
    public CompletableFuture<Boolean> create(String id, String name, String desc) {
        String nsId = id == null || id.isBlank() ? UUID.randomUUID().toString() : id.trim();
        checkId(nsId);
        checkName("namespaceName", name);
        checkDesc(desc);
        long now = System.currentTimeMillis();
        byte[] value = NamespaceCodec.encode(new Namespace(nsId, name, desc, now, now));
        Command create = Command.of(
                List.of(Compare.modRevision(KEYSPACE, key(nsId), 0)),
                List.of(Op.put(KEYSPACE, key(nsId), value).withCap(quota)));
        return store.write(create).thenApply(r -> r.succeeded());
    }

    /** True if a namespace with this id was created (the public namespace is not: false for a blank id). */
    public boolean exists(String id) {
        return id != null && !id.isBlank() && store.get(KEYSPACE, key(id)) != null;
    }

    /** The namespace with its config count; the public one for a blank or null id; null if unknown. */
    public NamespaceUsage get(String id) {
        if (isPublic(id)) {
            return new NamespaceUsage(Namespace.PUBLIC, countConfigs(Namespace.PUBLIC_ID));
        }
        Namespace ns = read(id);
        return ns == null ? null : new NamespaceUsage(ns, countConfigs(ns.id()));
    }

    /** The public namespace first, then the created ones in creation order, each with its config count. */
    public List<NamespaceUsage> list() {
        List<Namespace> created = new ArrayList<>();
        for (KvEntry e : store.scan(KEYSPACE, new byte[0], Integer.MAX_VALUE)) {
            created.add(NamespaceCodec.decode(new String(e.key(), StandardCharsets.UTF_8), e.value()));
        }
        created.sort(Comparator.comparingLong(Namespace::createTime).thenComparing(Namespace::id));
        List<NamespaceUsage> out = new ArrayList<>(created.size() + 1);
        out.add(new NamespaceUsage(Namespace.PUBLIC, countConfigs(Namespace.PUBLIC_ID)));
        for (Namespace ns : created) {
            out.add(new NamespaceUsage(ns, countConfigs(ns.id())));
        }
        return out;
    }

    /**
     * Replaces the name and description of namespace {@code id}. Completes with true once durable, or
     * false, writing nothing, if no such namespace exists (also when it is deleted concurrently: the
     * put is guarded by the revision read, so an edit never brings a deleted namespace back).
     */
    public CompletableFuture<Boolean> update(String id, String name, String desc) {
        if (id == null) {
            throw new InvalidRequestException("namespace", "is required");
        }
        if (isPublic(id)) {
            throw new InvalidRequestException("namespace", "the public namespace cannot be edited");
        }
        checkName("namespaceShowName", name);
        checkDesc(desc);
        // caught up first: a namespace created through another node may not be applied here yet
        return store.linearizable()
                .thenCompose(v -> updates.run(
                        () -> updateAttempt(id, name, desc),
                        // edited by others every time we tried: theirs stand, ours is a lost race
                        () -> CompletableFuture.completedFuture(false)));
    }

    private Step<Boolean> updateAttempt(String id, String name, String desc) {
        KvEntry e = store.get(KEYSPACE, key(id));
        if (e == null) {
            return Step.answer(false);
        }
        Namespace old = NamespaceCodec.decode(id, e.value());
        byte[] value =
                NamespaceCodec.encode(new Namespace(id, name, desc, old.createTime(), System.currentTimeMillis()));
        return Step.propose(Command.putIfRevision(KEYSPACE, key(id), value, e.modRevision()), true);
    }

    /**
     * Deletes namespace {@code id} if it holds no configs. Completes with true once durable, and with
     * true at once for an id that does not exist (as Nacos); fails with {@link
     * NamespaceNotEmptyException}, writing nothing, while configs remain in it.
     *
     * <p>The emptiness check reads this node's replica, caught up with the leader, before proposing:
     * a config published into the namespace concurrently may outlive it. That leaves the config in a tenant without a namespace
     * record, which Nacos allows anyway (a config may name a tenant that was never created).
     */
    public CompletableFuture<Boolean> delete(String id) {
        if (id == null) {
            throw new InvalidRequestException("namespaceId", "is required");
        }
        if (isPublic(id)) {
            throw new InvalidRequestException("namespaceId", "the public namespace cannot be deleted");
        }
        // caught up first, so neither the namespace nor a config in it is missed for this node lagging
        return store.linearizable().thenCompose(v -> {
            if (store.get(KEYSPACE, key(id)) == null) {
                return CompletableFuture.completedFuture(true);
            }
            long configs = countConfigs(id);
            if (configs > 0) {
                return CompletableFuture.failedFuture(new NamespaceNotEmptyException(id, configs));
            }
            return store.write(Command.delete(KEYSPACE, key(id))).thenApply(r -> true);
        });
    }

    private Namespace read(String id) {
        KvEntry e = store.get(KEYSPACE, key(id));
        return e == null ? null : NamespaceCodec.decode(id, e.value());
    }

    private long countConfigs(String id) {
        return store.countedKeys(ConfigKeyspaces.CONFIG, ConfigKey.tenantPrefix(id));
    }

    private static boolean isPublic(String id) {
        return id == null || id.isBlank() || id.equals(PUBLIC_ALIAS);
    }

    private static byte[] key(String id) {
        return id.getBytes(StandardCharsets.UTF_8);
    }

    private static void checkId(String id) {
        if (id.length() > MAX_ID) {
            throw new InvalidRequestException("customNamespaceId", "longer than " + MAX_ID + " characters");
        }
        for (int i = 0; i < id.length(); i++) {
            char c = id.charAt(i);
            boolean ok =
                    (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_';
            if (!ok) {
                throw new InvalidRequestException(
                        "customNamespaceId", "illegal character '" + c + "' (allowed: letters, digits, - _)");
            }
        }
        if (id.equals(PUBLIC_ALIAS)) {
            throw new InvalidRequestException("customNamespaceId", "'public' is reserved for the public namespace");
        }
    }

    private static void checkName(String field, String name) {
        if (name == null || name.isBlank()) {
            throw new InvalidRequestException(field, "is required and must not be blank");
        }
        if (name.length() > MAX_NAME) {
            throw new InvalidRequestException(field, "longer than " + MAX_NAME + " characters");
        }
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            if (Character.isISOControl(c)) {
                throw new InvalidRequestException(field, "control characters are not allowed");
            }
            if (NAME_FORBIDDEN.indexOf(c) >= 0) {
                throw new InvalidRequestException(
                        field, "illegal character '" + c + "' (not allowed: " + NAME_FORBIDDEN + ")");
            }
        }
    }

    private static void checkDesc(String desc) {
        if (desc == null) {
            return;
        }
        if (desc.length() > MAX_DESC) {
            throw new InvalidRequestException("namespaceDesc", "longer than " + MAX_DESC + " characters");
        }
        for (int i = 0; i < desc.length(); i++) {
            char c = desc.charAt(i);
            if (Character.isISOControl(c) && c != '\n' && c != '\r' && c != '\t') {
                throw new InvalidRequestException("namespaceDesc", "control characters are not allowed");
            }
        }
    }
}
