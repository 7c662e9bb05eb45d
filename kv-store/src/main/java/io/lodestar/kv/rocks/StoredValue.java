package io.lodestar.kv.rocks;

import io.lodestar.kv.KvEntry;
import java.nio.ByteBuffer;
import java.util.Arrays;

/** On-disk value layout: create revision (8 bytes), modify revision (8 bytes), then the value. */
final class StoredValue {
    private static final int HEADER = 16;

    private StoredValue() {}

    static byte[] encode(long createRevision, long modRevision, byte[] value) {
        return ByteBuffer.allocate(HEADER + value.length)
                .putLong(createRevision)
                .putLong(modRevision)
                .put(value)
                .array();
    }

    static KvEntry decode(byte[] key, byte[] stored) {
        if (stored.length < HEADER) {
            throw new IllegalStateException("stored value shorter than its header: " + stored.length + " bytes");
        }
        ByteBuffer buf = ByteBuffer.wrap(stored);
        long create = buf.getLong();
        long mod = buf.getLong();
        return new KvEntry(key, Arrays.copyOfRange(stored, HEADER, stored.length), create, mod);
    }
}
