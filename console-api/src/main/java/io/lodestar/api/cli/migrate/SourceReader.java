package io.lodestar.api.cli.migrate;

import io.lodestar.api.cli.migrate.Items.Beta;
import io.lodestar.api.cli.migrate.Items.Config;
import io.lodestar.api.cli.migrate.Items.ConfigKey;
import io.lodestar.api.cli.migrate.Items.Instance;
import io.lodestar.api.cli.migrate.Items.Namespace;
import io.lodestar.api.cli.migrate.Items.Permission;
import io.lodestar.api.cli.migrate.Items.RoleBinding;
import io.lodestar.api.cli.migrate.Items.Service;
import io.lodestar.api.cli.migrate.Items.ServiceKey;
import io.lodestar.api.cli.migrate.Items.User;
import java.io.IOException;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * A Nacos server read through its own HTTP API: {@link NacosV1Reader} for 2.x (the v1 API, which
 * Lodestar serves too), {@link NacosV3Reader} for 3.x (the v3 admin API; 3.2 removed v1). Every
 * method reads, none writes. A failure is an {@link IOException} (the source could not be reached)
 * or a {@link SourceHttp.SourceException} (it refused or failed the request), for the caller to
 * report against the item or kind being read. Optional kinds the source does not serve (users,
 * roles and permissions with its auth plugin off) answer {@link Optional#empty()}.
 */
interface SourceReader {
    /** Which API this reads, for the report: e.g. {@code Nacos v1 API}. */
    String describe();

    List<Namespace> namespaces() throws IOException, InterruptedException;

    /** Every config of {@code namespace}, by key. */
    List<ConfigKey> configKeys(String namespace) throws IOException, InterruptedException;

    /** The config with its content and fields; empty if it went since it was listed. */
    Optional<Config> config(ConfigKey key) throws IOException, InterruptedException;

    /** The config's beta (gray release by IP), if it has one. */
    Optional<Beta> beta(ConfigKey key) throws IOException, InterruptedException;

    /**
     * Every service of {@code namespace}. A source that cannot list across groups (Lodestar, a
     * Nacos without the catalog) lists those of {@code groups} only.
     */
    List<ServiceKey> services(String namespace, Set<String> groups) throws IOException, InterruptedException;

    Service service(ServiceKey key) throws IOException, InterruptedException;

    /** Every instance of the service, enabled or not, ephemeral ones included (each says which). */
    List<Instance> instances(Service service) throws IOException, InterruptedException;

    Optional<List<User>> users() throws IOException, InterruptedException;

    Optional<List<RoleBinding>> roles() throws IOException, InterruptedException;

    Optional<List<Permission>> permissions() throws IOException, InterruptedException;
}
