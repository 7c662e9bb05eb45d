package io.lodestar.config.namespace;

/**
 * A namespace (Nacos "tenant"): configs whose tenant equals {@code id} belong to it. The public
 * namespace has the empty id, always exists and is never stored.
 *
 * @param createTime epoch millis of the create; 0 for the public namespace
 * @param modifyTime epoch millis of the last create or update; 0 for the public namespace
 */
public record Namespace(String id, String name, String desc, long createTime, long modifyTime) {
    public static final String PUBLIC_ID = "";
    public static final Namespace PUBLIC = new Namespace(PUBLIC_ID, "public", "Public Namespace", 0, 0);

    public boolean isPublic() {
        return id.isEmpty();
    }
}
