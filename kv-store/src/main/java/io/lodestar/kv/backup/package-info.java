/**
 * The snapshot file an operator saves from a running group and restores a new group from: one
 * stream holding a header (format, revision, applied index, time, cluster, key counts), the files of
 * a RocksDB checkpoint of the whole store, and a SHA-256 of all of it. Knows bytes and files only;
 * where the checkpoint comes from and what a data directory looks like are {@code kv.raft}'s.
 */
package io.lodestar.kv.backup;
