package io.lodestar.kv.backup;

import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * What a snapshot file says of itself, before its files.
 *
 * @param format       the file format's version ({@link BackupFormat#VERSION} when written by this build)
 * @param revision     the store revision the snapshot holds: every write up to it, none after
 * @param appliedIndex the Raft log index the store had applied, which a restored group continues from
 * @param created      when the checkpoint was taken
 * @param clusterId    the id of the group it was taken from; empty if that group had none yet
 * @param node         the member that took it ({@code host:raftPort})
 * @param keys         the number of keys of each keyspace
 */
public record BackupHeader(
        int format,
        long revision,
        long appliedIndex,
        Instant created,
        String clusterId,
        String node,
        Map<String, Long> keys) {
    public BackupHeader {
        keys = new TreeMap<>(keys);
    }

    /** The header as {@code key=value} lines, in a fixed order; keyspaces as {@code keys.NAME}. */
    Map<String, String> fields() {
        Map<String, String> out = new LinkedHashMap<>();
        out.put("format", Integer.toString(format));
        out.put("revision", Long.toString(revision));
        out.put("applied-index", Long.toString(appliedIndex));
        out.put("created", created.toString());
        out.put("cluster-id", clusterId);
        out.put("node", node);
        keys.forEach((k, v) -> out.put("keys." + k, Long.toString(v)));
        return out;
    }
}
