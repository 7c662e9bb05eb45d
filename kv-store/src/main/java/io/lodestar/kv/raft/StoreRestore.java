package io.lodestar.kv.raft;

import com.alipay.sofa.jraft.JRaftUtils;
import com.alipay.sofa.jraft.conf.Configuration;
import com.alipay.sofa.jraft.option.BootstrapOptions;
import io.lodestar.kv.backup.BackupFormat;
import io.lodestar.kv.backup.BackupFormatException;
import io.lodestar.kv.count.CountRules;
import io.lodestar.kv.feed.ChangeFeed;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.stream.Stream;

/**
 * Builds a new member's data directory from a snapshot file, offline: the store exactly as the
 * file holds it (same revision, same applied index), and a Raft log that begins right after that
 * index with the given members as its group, by JRaft's own {@code bootstrap}, which records the
 * store as a snapshot of the log. A node started on the directory continues the log from there;
 * each member of a new group gets a directory built from the same file with the same members.
 *
 * <p>Nothing is written before the whole file has been read and checked, and a directory left
 * half-built by a failure is removed.
 */
public final class StoreRestore {
    private StoreRestore() {}

    /**
     * Restores {@code file} into {@code dataDir}, which must be missing or empty, for a group of
     * {@code peers} ({@code host:raftPort} each). Returns what the file held.
     */
    public static BackupFormat.Contents restore(
            Path file, Path dataDir, List<String> peers, Set<String> keyspaces, CountRules counting)
            throws IOException, BackupFormatException {
        Configuration group = new Configuration();
        if (peers.isEmpty() || !group.parse(String.join(",", peers))) {
            throw new IllegalArgumentException(
                    "--peers: '" + String.join(",", peers) + "' is not a list of host:raftPort");
        }
        BackupFormat.Contents contents = BackupFormat.verify(file);
        if (Files.exists(dataDir)) {
            try (Stream<Path> entries = Files.list(dataDir)) {
                if (entries.findAny().isPresent()) {
                    throw new IllegalArgumentException(dataDir + " is not empty: restore builds a new data directory");
                }
            }
        }
        Files.createDirectories(dataDir);
        ExecutorService background = Executors.newSingleThreadExecutor();
        boolean done = false;
        try {
            KvDirectory directory = new KvDirectory(dataDir.resolve("kv"));
            Path generation = directory.active();
            Files.createDirectories(generation);
            BackupFormat.extract(file, generation);
            Set<String> all = new HashSet<>(keyspaces);
            all.add(MemberDirectory.KEYSPACE);
            KvStateMachine fsm =
                    new KvStateMachine(directory, all, counting, 8L << 20, new ChangeFeed(), Runnable::run, background);
            long applied = fsm.appliedIndex();
            if (applied != contents.header().appliedIndex()) {
                throw new BackupFormatException(file + " is damaged: its store is at index " + applied
                        + ", its header says " + contents.header().appliedIndex());
            }
            Path raft = dataDir.resolve("raft");
            Files.createDirectories(raft);
            BootstrapOptions options = new BootstrapOptions();
            options.setGroupId(RaftKvStore.GROUP);
            options.setGroupConf(group);
            options.setFsm(fsm);
            options.setLastLogIndex(applied);
            options.setLogUri(raft.resolve("log").toString());
            options.setRaftMetaUri(raft.resolve("meta").toString());
            options.setSnapshotUri(raft.resolve("snapshot").toString());
            // shuts the state machine down, closing the store, once done
            if (!JRaftUtils.bootstrap(options)) {
                throw new IOException("the Raft log could not be started at index " + applied + " (see the log above)");
            }
            done = true;
            return contents;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while restoring into " + dataDir, e);
        } finally {
            background.shutdown();
            if (!done) {
                KvDirectory.deleteTree(dataDir);
            }
        }
    }
}
