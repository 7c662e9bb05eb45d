package io.lodestar.naming.persistent;

import io.lodestar.naming.model.InstanceAddress;
import io.lodestar.naming.model.ServiceKey;
import java.nio.charset.StandardCharsets;

/** The store keys of {@link io.lodestar.naming.NamingKeyspaces}: parts joined by NUL. */
final class StoreKeys {
    private static final char SEP = '\0';

    private StoreKeys() {}

    static byte[] service(ServiceKey s) {
        return utf8(s.namespace() + SEP + s.group() + SEP + s.service());
    }

    /** The prefix of every instance key of the service. */
    static byte[] instancesOf(ServiceKey s) {
        return utf8(s.namespace() + SEP + s.group() + SEP + s.service() + SEP);
    }

    static byte[] instance(ServiceKey s, InstanceAddress a) {
        return utf8(s.namespace()
                + SEP
                + s.group()
                + SEP
                + s.service()
                + SEP
                + a.cluster()
                + SEP
                + a.ip()
                + SEP
                + a.port());
    }

    /** The prefix of every service key (and instance key) in a namespace: the scope the store counts. */
    static byte[] namespace(String namespace) {
        return utf8(namespace + SEP);
    }

    /** The prefix of every service key (and instance key) in a group of a namespace. */
    static byte[] group(String namespace, String group) {
        return utf8(namespace + SEP + group + SEP);
    }

    /** The service a key of either keyspace belongs to. */
    static ServiceKey serviceOf(byte[] key) {
        String[] parts = split(key);
        if (parts.length != 3 && parts.length != 6) {
            throw new IllegalArgumentException("not a naming store key: " + parts.length + " parts");
        }
        return new ServiceKey(parts[0], parts[1], parts[2]);
    }

    static InstanceAddress addressOf(byte[] instanceKey) {
        String[] parts = split(instanceKey);
        if (parts.length != 6) {
            throw new IllegalArgumentException("not an instance key: " + parts.length + " parts");
        }
        return new InstanceAddress(parts[3], parts[4], Integer.parseInt(parts[5]));
    }

    private static String[] split(byte[] key) {
        return new String(key, StandardCharsets.UTF_8).split(String.valueOf(SEP), -1);
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
