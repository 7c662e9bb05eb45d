package io.lodestar.config;

import io.lodestar.error.InvalidRequestException;
import java.nio.charset.StandardCharsets;

/**
 * Where a config lives: namespace (tenant; empty is the public namespace), group and dataId.
 * Validated as Nacos does: dataId and group use letters, digits and {@code -_.:}; the tenant is any
 * printable string (an id that was never created is accepted, as in Nacos).
 */
public record ConfigKey(String tenant, String group, String dataId) {
    public static final String DEFAULT_GROUP = "DEFAULT_GROUP";
    /** Another name of the public namespace, whose id is empty; no namespace may take it. */
    public static final String PUBLIC_ALIAS = "public";

    static final int MAX_DATA_ID = 256;
    static final int MAX_GROUP = 128;
    static final int MAX_TENANT = 128;

    public ConfigKey {
        // "public" is the public namespace's other name (nacos-client 3.x sends it, 2.x sends "")
        tenant = tenant == null || tenant.equalsIgnoreCase(PUBLIC_ALIAS) ? "" : tenant;
        group = group == null || group.isEmpty() ? DEFAULT_GROUP : group;
        checkName("dataId", dataId, MAX_DATA_ID);
        checkName("group", group, MAX_GROUP);
        checkTenant(tenant);
    }

    private static void checkName(String field, String value, int max) {
        if (value == null || value.isBlank()) {
            throw new InvalidRequestException(field, "is required");
        }
        if (value.length() > max) {
            throw new InvalidRequestException(field, "longer than " + max + " characters");
        }
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            boolean ok = (c >= 'a' && c <= 'z')
                    || (c >= 'A' && c <= 'Z')
                    || (c >= '0' && c <= '9')
                    || c == '-'
                    || c == '_'
                    || c == '.'
                    || c == ':';
            if (!ok) {
                throw new InvalidRequestException(
                        field, "illegal character '" + c + "' (allowed: letters, digits, - _ . :)");
            }
        }
    }

    private static void checkTenant(String tenant) {
        if (tenant.length() > MAX_TENANT) {
            throw new InvalidRequestException("tenant", "longer than " + MAX_TENANT + " characters");
        }
        for (int i = 0; i < tenant.length(); i++) {
            if (Character.isISOControl(tenant.charAt(i))) {
                throw new InvalidRequestException("tenant", "control characters are not allowed");
            }
        }
    }

    /** The store key: the three parts joined by NUL, which none of them may contain. */
    public byte[] storeKey() {
        return (tenant + '\0' + group + '\0' + dataId).getBytes(StandardCharsets.UTF_8);
    }

    /** The prefix shared by the store keys of every config in {@code tenant}. */
    public static byte[] tenantPrefix(String tenant) {
        return ((tenant == null ? "" : tenant) + '\0').getBytes(StandardCharsets.UTF_8);
    }

    /** The key a {@link #storeKey()} was made from. */
    public static ConfigKey fromStoreKey(byte[] storeKey) {
        String[] parts = new String(storeKey, StandardCharsets.UTF_8).split("\0", -1);
        if (parts.length != 3) {
            throw new IllegalArgumentException("not a config store key: " + parts.length + " parts");
        }
        return new ConfigKey(parts[0], parts[1], parts[2]);
    }
}
