package io.lodestar.naming.model;

import java.util.Map;

/**
 * A partial edit of an instance (Nacos's {@code PATCH /instance}): a null field leaves that field
 * as it is. A given metadata map replaces the instance's metadata whole (Nacos's PATCH does the
 * same; {@code PUT} is the one that merges).
 */
public record InstancePatch(Double weight, Boolean enabled, Map<String, String> metadata) {
    public static final InstancePatch NONE = new InstancePatch(null, null, null);

    public InstancePatch withWeight(double w) {
        return new InstancePatch(w, enabled, metadata);
    }

    public InstancePatch withEnabled(boolean e) {
        return new InstancePatch(weight, e, metadata);
    }

    public InstancePatch withMetadata(Map<String, String> m) {
        return new InstancePatch(weight, enabled, m);
    }

    /** {@code instance} with the given fields replaced (weight clamped, metadata checked as always). */
    public Instance applyTo(Instance instance) {
        Instance out = instance;
        if (weight != null) {
            out = out.withWeight(weight);
        }
        if (enabled != null) {
            out = out.withEnabled(enabled);
        }
        if (metadata != null) {
            out = out.withMetadata(metadata);
        }
        return out;
    }
}
