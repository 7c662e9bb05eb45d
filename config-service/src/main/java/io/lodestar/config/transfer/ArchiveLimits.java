package io.lodestar.config.transfer;

/**
 * Bounds on an imported archive, all checked while reading it, before anything is written.
 *
 * @param maxArchiveBytes the uploaded (compressed) file
 * @param maxEntries      entries in the archive, directories and metadata included
 * @param maxEntryBytes   one entry, inflated: the declared size and the bytes actually inflated
 * @param maxTotalBytes   all entries together, inflated (a zip bomb stops here)
 */
public record ArchiveLimits(long maxArchiveBytes, int maxEntries, int maxEntryBytes, long maxTotalBytes) {
    /** 32 MiB uploads, 10,000 entries, 10 MiB per config (the publish limit), 100 MiB in all. */
    public static ArchiveLimits defaults() {
        return new ArchiveLimits(32L << 20, 10_000, 10 << 20, 100L << 20);
    }
}
