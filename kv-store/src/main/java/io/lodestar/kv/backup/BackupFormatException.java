package io.lodestar.kv.backup;

/** A snapshot file this build cannot use, with what is wrong with it: damaged, truncated, newer, or not one. */
public final class BackupFormatException extends Exception {
    public BackupFormatException(String message) {
        super(message);
    }
}
