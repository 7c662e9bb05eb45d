package io.lodestar.kv.rocks;

/** RocksDB failed: the message names the data directory and RocksDB's own reason (and file). */
public final class StorageException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public StorageException(String message, Throwable cause) {
        super(message, cause);
    }
}
