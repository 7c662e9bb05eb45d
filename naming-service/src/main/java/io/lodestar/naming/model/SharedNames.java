package io.lodestar.naming.model;

import java.util.concurrent.ConcurrentHashMap;

/**
 * One shared String per cluster, namespace and group name: a registry holds hundreds of thousands
 * of instances and services but only a handful of these names, and each request parses its own
 * copy. Bounded, so a client making up names cannot grow it without limit (past the bound names
 * are simply not shared).
 */
public final class SharedNames {
    private static final int MAX = 10_000;
    private static final ConcurrentHashMap<String, String> NAMES = new ConcurrentHashMap<>();

    private SharedNames() {}

    public static String canonical(String name) {
        String known = NAMES.get(name);
        if (known != null) {
            return known;
        }
        if (NAMES.size() >= MAX) {
            return name;
        }
        String prior = NAMES.putIfAbsent(name, name);
        return prior == null ? name : prior;
    }
}
