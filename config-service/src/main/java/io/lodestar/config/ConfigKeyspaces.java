package io.lodestar.config;

import io.lodestar.kv.count.CountRules;
import java.util.Map;
import java.util.Set;

/** The store keyspaces the config domain owns. */
public final class ConfigKeyspaces {
    /** Current configs, keyed by {@link ConfigKey#storeKey()}. */
    public static final String CONFIG = "config";
    /** Every publish and delete, keyed by config key then revision. */
    public static final String HISTORY = "config_history";
    /** Gray releases (beta): at most one per config, keyed like {@link #CONFIG}; see {@link BetaConfig}. */
    public static final String BETA = "config_beta";
    /** Namespaces (tenants) created through the API, keyed by id. */
    public static final String NAMESPACE = "namespace";

    /** Every publish and delete in revision order, for the push channel's replay: {@code push.ConfigChangeLog}. */
    public static final String CHANGES = "config_changes";

    public static final Set<String> ALL = Set.of(CONFIG, BETA, HISTORY, NAMESPACE, CHANGES);

    /**
     * The keys the store counts for the quotas: configs by namespace (the store key's tenant part),
     * namespaces all together.
     */
    public static final CountRules COUNTED = CountRules.of(Map.of(CONFIG, 1, NAMESPACE, 0));

    private ConfigKeyspaces() {}
}
