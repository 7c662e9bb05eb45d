package io.lodestar.api.cli.migrate;

import io.lodestar.api.cli.migrate.Items.Beta;
import io.lodestar.api.cli.migrate.Items.Cluster;
import io.lodestar.api.cli.migrate.Items.Config;
import io.lodestar.api.cli.migrate.Items.ConfigKey;
import io.lodestar.api.cli.migrate.Items.Instance;
import io.lodestar.api.cli.migrate.Items.Namespace;
import io.lodestar.api.cli.migrate.Items.RoleBinding;
import io.lodestar.api.cli.migrate.Items.Service;
import io.lodestar.api.cli.migrate.Items.ServiceKey;
import io.lodestar.api.cli.migrate.Summary.Kind;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Consumer;

/**
 * One run of {@code migrate}: walks the source kind by kind (namespaces; per namespace its configs
 * with their betas, then its persistent services with their instances; then users, roles and
 * permissions), compares each item with the target's copy ({@link Diff}) and writes only what
 * differs, unless it is a dry run, which writes nothing. Every item's outcome goes to the {@link
 * Summary}; a failure is recorded against its item (or, when a whole list cannot be read, against
 * the list) and the walk goes on. Nothing is ever deleted at the target. Ephemeral instances are
 * not copied: their clients register them again when pointed at Lodestar.
 */
final class Migration {
    /** Instances' health is the target probes' to decide, so it is copied on creation only. */
    private static final Set<String> NOT_COMPARED = Set.of("healthy");
    /** Nacos's global admin role, and Lodestar's one admin user. */
    private static final String ADMIN_ROLE = "ROLE_ADMIN";

    private static final String ADMIN = "nacos";

    private final SourceReader source;
    private final LodestarTarget target;
    private final Summary summary;
    private final boolean dryRun;
    private final NewPasswords passwords;
    private final Consumer<Summary.Line> onChange;

    /**
     * {@code passwords} may be null: then users missing at the target fail with a reason instead of
     * being created. {@code onChange} hears each change (or failure) as it is recorded.
     */
    Migration(
            SourceReader source,
            LodestarTarget target,
            Summary summary,
            boolean dryRun,
            NewPasswords passwords,
            Consumer<Summary.Line> onChange) {
        this.source = source;
        this.target = target;
        this.summary = summary;
        this.dryRun = dryRun;
        this.passwords = passwords;
        this.onChange = onChange;
    }

    /** A read or a write that may fail for its item. */
    private interface Step {
        void run() throws IOException, InterruptedException;
    }

    /**
     * Copies the namespaces {@code wanted} selects ({@code null}: all of them), looking for services
     * in {@code extraGroups} too where the source cannot list them across groups.
     */
    void run(Set<String> wanted, Set<String> extraGroups) throws InterruptedException {
        List<Namespace> namespaces = new ArrayList<>();
        attempt(Kind.NAMESPACES, "(the source's namespace list)", () -> {
            for (Namespace n : source.namespaces()) {
                if (wanted == null || wanted.contains(n.id())) {
                    namespaces.add(n);
                }
            }
            if (wanted != null) {
                Set<String> missing = new TreeSet<>(wanted);
                namespaces.forEach(n -> missing.remove(n.id()));
                missing.forEach(id -> fail(Kind.NAMESPACES, Items.shown(id), "the source has no such namespace"));
            }
        });
        Map<String, Namespace> present = Map.of();
        try {
            present = target.namespaces();
        } catch (IOException | RuntimeException e) {
            fail(Kind.NAMESPACES, "(the target's namespace list)", reason(e));
        }
        for (Namespace n : namespaces) {
            copyNamespace(n, present);
        }
        for (Namespace n : namespaces) {
            Set<String> groups = new TreeSet<>(extraGroups);
            groups.add("DEFAULT_GROUP");
            copyConfigs(n, groups);
            copyServices(n, groups);
        }
        copyAuth();
    }

    private void copyNamespace(Namespace n, Map<String, Namespace> present) throws InterruptedException {
        if (n.id().isEmpty()) {
            return; // the public namespace is always there and cannot be edited
        }
        Diff diff = Diff.of(n, Optional.ofNullable(present.get(n.id())));
        apply(Kind.NAMESPACES, n.toString(), diff, () -> {
            if (diff.action() == Diff.Action.CREATE) {
                target.createNamespace(n);
            } else {
                target.updateNamespace(n);
            }
        });
    }

    private void copyConfigs(Namespace n, Set<String> groups) throws InterruptedException {
        List<ConfigKey> keys = new ArrayList<>();
        attempt(Kind.CONFIGS, "(configs of namespace " + n + ")", () -> keys.addAll(source.configKeys(n.id())));
        for (ConfigKey key : keys) {
            groups.add(key.group());
            attempt(Kind.CONFIGS, key.toString(), () -> {
                Optional<Config> config = source.config(key);
                if (config.isEmpty()) {
                    return; // deleted at the source since it was listed
                }
                Diff diff = Diff.of(config.get(), target.config(key));
                apply(Kind.CONFIGS, key.toString(), diff, () -> target.publish(config.get()));
            });
            attempt(Kind.BETAS, key.toString(), () -> {
                Optional<Beta> beta = source.beta(key);
                if (beta.isPresent()) {
                    Diff diff = Diff.of(beta.get(), target.beta(key));
                    apply(Kind.BETAS, key + " [" + beta.get().ips() + "]", diff, () -> target.publishBeta(beta.get()));
                }
            });
        }
    }

    private void copyServices(Namespace n, Set<String> groups) throws InterruptedException {
        List<ServiceKey> keys = new ArrayList<>();
        attempt(Kind.SERVICES, "(services of namespace " + n + ")", () -> keys.addAll(source.services(n.id(), groups)));
        for (ServiceKey key : keys) {
            attempt(Kind.SERVICES, key.toString(), () -> copyService(key));
        }
    }

    private void copyService(ServiceKey key) throws IOException, InterruptedException {
        Service service = source.service(key);
        List<Instance> instances = source.instances(service);
        List<Instance> persistent =
                instances.stream().filter(i -> !i.ephemeral()).toList();
        if (!instances.isEmpty() && persistent.isEmpty()) {
            return; // an ephemeral service: its clients register it again
        }
        Optional<Service> there = target.service(key);
        Diff definition = Diff.of(service, there, Set.of("clusters"));
        Diff clusters = Diff.UNCHANGED;
        Map<String, Cluster> theirClusters = there.map(Service::clusters).orElse(Map.of());
        List<String> changedClusters = new ArrayList<>();
        for (Map.Entry<String, Cluster> c : service.clusters().entrySet()) {
            Cluster theirs = theirClusters.getOrDefault(c.getKey(), Cluster.DEFAULT);
            if (!theirs.equals(c.getValue())) {
                changedClusters.add(c.getKey());
                clusters = new Diff(Diff.Action.UPDATE, List.of("clusters"));
            }
        }
        Diff all = definition.and(clusters);
        Map<String, Instance> theirInstances = there.isPresent() ? target.instances(key) : Map.of();
        if (!dryRun) {
            if (definition.action() == Diff.Action.CREATE) {
                target.createService(service);
            } else if (definition.action() == Diff.Action.UPDATE) {
                target.updateService(service);
            }
        }
        for (Instance i : persistent) {
            Diff diff = Diff.of(i, Optional.ofNullable(theirInstances.get(i.address())), NOT_COMPARED);
            apply(Kind.INSTANCES, i.toString(), diff, () -> target.register(i));
        }
        if (!dryRun) {
            for (String cluster : changedClusters) {
                target.updateCluster(key, cluster, service.clusters().get(cluster));
            }
        }
        Summary.Line line = summary.record(Kind.SERVICES, key.toString(), all);
        if (all.action() != Diff.Action.UNCHANGED) {
            onChange.accept(line);
        }
    }

    private void copyAuth() throws InterruptedException {
        String noPasswords = "its password cannot be read from the source; give --new-passwords-file to create it"
                + " with a generated one";
        attempt(
                Kind.USERS,
                "(the source's users)",
                () -> copyEach(
                        Kind.USERS,
                        source.users(),
                        target::users,
                        u -> passwords == null ? Optional.of(noPasswords) : Optional.empty(),
                        u -> target.createUser(u.username(), passwords.issue(u.username()))));
        attempt(Kind.ROLES, "(the source's roles)", () -> {
            Optional<List<RoleBinding>> roles = source.roles();
            List<RoleBinding> others = new ArrayList<>();
            for (RoleBinding b : roles.orElse(List.of())) {
                if (b.role().equals(ADMIN_ROLE)) {
                    adminRole(b);
                } else {
                    others.add(b);
                }
            }
            copyEach(Kind.ROLES, roles.map(r -> others), target::roles, b -> Optional.empty(), target::bind);
        });
        attempt(
                Kind.PERMISSIONS,
                "(the source's permissions)",
                () -> copyEach(
                        Kind.PERMISSIONS,
                        source.permissions(),
                        target::permissions,
                        p -> Optional.empty(),
                        target::grant));
    }

    /** What the target holds of a kind that is copied whole or not at all (users, roles, permissions). */
    private interface Present<T> {
        Set<T> read() throws IOException, InterruptedException;
    }

    /** A write of one item of such a kind. */
    private interface Create<T> {
        void write(T item) throws IOException, InterruptedException;
    }

    /**
     * Creates each item of {@code items} that the target lacks (none: the source does not serve
     * the kind), unless {@code refusal} gives a reason not to, which is then its failure.
     */
    private <T extends Record> void copyEach(
            Kind kind,
            Optional<List<T>> items,
            Present<T> present,
            java.util.function.Function<T, Optional<String>> refusal,
            Create<T> create)
            throws IOException, InterruptedException {
        if (items.isEmpty()) {
            return;
        }
        Set<T> there = present.read();
        for (T item : items.get()) {
            Diff diff = Diff.of(item, there.contains(item) ? Optional.of(item) : Optional.empty());
            Optional<String> refused = diff.action() == Diff.Action.CREATE ? refusal.apply(item) : Optional.empty();
            if (refused.isPresent()) {
                fail(kind, item.toString(), refused.get());
            } else {
                apply(kind, item.toString(), diff, () -> create.write(item));
            }
        }
    }

    /**
     * Nacos's global admin role. Lodestar's admin is the user {@code nacos} alone and the role
     * cannot be given, so the admin's own binding is there already and anyone else's fails.
     */
    private void adminRole(RoleBinding b) {
        if (b.username().equals(ADMIN)) {
            summary.record(Kind.ROLES, b.toString(), Diff.UNCHANGED);
        } else {
            fail(
                    Kind.ROLES,
                    b.toString(),
                    "ROLE_ADMIN is the admin user nacos's alone in Lodestar; grant " + b.username()
                            + " permissions instead (lodestar user grant)");
        }
    }

    /** Records {@code diff} for the item and, unless it is a dry run or nothing changes, writes it. */
    private void apply(Kind kind, String item, Diff diff, Step write) throws InterruptedException {
        if (diff.action() != Diff.Action.UNCHANGED && !dryRun) {
            try {
                write.run();
            } catch (IOException | RuntimeException e) {
                fail(kind, item, reason(e));
                return;
            }
        }
        Summary.Line line = summary.record(kind, item, diff);
        if (diff.action() != Diff.Action.UNCHANGED) {
            onChange.accept(line);
        }
    }

    private void attempt(Kind kind, String item, Step step) throws InterruptedException {
        try {
            step.run();
        } catch (IOException | RuntimeException e) {
            fail(kind, item, reason(e));
        }
    }

    private void fail(Kind kind, String item, String reason) {
        onChange.accept(summary.failed(kind, item, reason));
    }

    private static String reason(Exception e) {
        String m = e.getMessage();
        return m == null || m.isBlank() ? e.getClass().getSimpleName() : m.trim();
    }
}
