package io.lodestar.kv.raft;

import com.alipay.sofa.jraft.Closure;
import com.alipay.sofa.jraft.Status;
import com.alipay.sofa.jraft.entity.LocalFileMetaOutter.LocalFileMeta;
import com.alipay.sofa.jraft.entity.RaftOutter.SnapshotMeta;
import com.alipay.sofa.jraft.error.RaftError;
import com.alipay.sofa.jraft.storage.snapshot.SnapshotReader;
import com.alipay.sofa.jraft.storage.snapshot.SnapshotWriter;
import io.lodestar.kv.count.CountRules;
import io.lodestar.kv.rocks.RocksEngine;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.stream.Stream;
import java.util.zip.CRC32C;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A snapshot is a RocksDB checkpoint under {@code kv/} in JRaft's snapshot directory, each file
 * registered with its CRC32C so a corrupted or truncated snapshot is refused by name instead of
 * being installed.
 */
final class SnapshotFiles {
    private static final Logger LOG = LoggerFactory.getLogger(SnapshotFiles.class);
    private static final String DIR = "kv";
    /** The store's applied index at the checkpoint, beside it. */
    private static final String APPLIED_INDEX = "kv_applied_index";

    private final Executor background;

    SnapshotFiles(Executor background) {
        this.background = background;
    }

    /**
     * Takes the checkpoint now (on the caller's thread, so it matches the applied index), then
     * checksums and registers its files in the background and runs {@code done}.
     */
    void save(RocksEngine engine, SnapshotWriter writer, Closure done) {
        Path checkpoint = Paths.get(writer.getPath(), DIR);
        long index = engine.appliedIndex();
        try {
            engine.checkpoint(checkpoint);
        } catch (RuntimeException e) {
            LOG.error("snapshot failed", e);
            done.run(new Status(RaftError.EIO, "checkpoint failed: %s", e.getMessage()));
            return;
        }
        background.execute(() -> {
            try {
                Path appliedFile = Paths.get(writer.getPath(), APPLIED_INDEX);
                Files.writeString(appliedFile, Long.toString(index));
                if (!writer.addFile(
                        APPLIED_INDEX,
                        LocalFileMeta.newBuilder().setChecksum(crc(appliedFile)).build())) {
                    throw new IOException("cannot register " + APPLIED_INDEX + " in the snapshot");
                }
                for (Path file : files(checkpoint)) {
                    String name = DIR + "/" + file.getFileName();
                    if (!writer.addFile(
                            name,
                            LocalFileMeta.newBuilder().setChecksum(crc(file)).build())) {
                        throw new IOException("cannot register " + name + " in the snapshot");
                    }
                }
                LOG.info("snapshot saved at applied index {} in {}", index, writer.getPath());
                done.run(Status.OK());
            } catch (IOException | RuntimeException e) {
                LOG.error("snapshot failed", e);
                done.run(new Status(RaftError.EIO, "snapshot failed: %s", e.getMessage()));
            }
        });
    }

    /**
     * Builds a new engine from {@code reader}'s checkpoint in a new generation directory, or
     * returns null when the local store has already applied the snapshot's index (JRaft loads the
     * snapshot at every start; loading it then would roll the store back). Throws with the
     * offending file named when the snapshot is damaged.
     */
    RocksEngine load(
            long localApplied,
            SnapshotReader reader,
            KvDirectory directory,
            Collection<String> keyspaces,
            CountRules counting,
            long blockCacheBytes) {
        SnapshotMeta meta = reader.load();
        if (meta == null) {
            throw new IllegalStateException("snapshot metadata unreadable in " + reader.getPath());
        }
        // The store counts data entries only; the snapshot's own index may be a later
        // configuration entry. Compare like with like, or every restart would reload it.
        long index = storeIndex(reader).orElse(meta.getLastIncludedIndex());
        if (localApplied >= index) {
            LOG.info("store already at applied index {} >= snapshot's {}: snapshot not loaded", localApplied, index);
            return null;
        }
        Path source = Paths.get(reader.getPath(), DIR);
        try {
            verify(reader, source);
            Path generation = directory.nextGeneration();
            Files.createDirectories(generation);
            for (Path file : files(source)) {
                Path target = generation.resolve(file.getFileName());
                // SST files are immutable: share them. Everything else RocksDB may append to: copy.
                if (file.getFileName().toString().endsWith(".sst")) {
                    Files.createLink(target, file);
                } else {
                    Files.copy(file, target);
                }
            }
            LOG.info("loading snapshot at index {} (local store was at {})", index, localApplied);
            return RocksEngine.open(generation, keyspaces, counting, blockCacheBytes);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot install snapshot from " + source + ": " + e.getMessage(), e);
        }
    }

    private static java.util.OptionalLong storeIndex(SnapshotReader reader) {
        Path file = Paths.get(reader.getPath(), APPLIED_INDEX);
        if (!reader.listFiles().contains(APPLIED_INDEX) || !Files.exists(file)) {
            return java.util.OptionalLong.empty();
        }
        try {
            String expected = ((LocalFileMeta) reader.getFileMeta(APPLIED_INDEX)).getChecksum();
            if (!expected.equals(crc(file))) {
                throw new IllegalStateException("snapshot file corrupted: " + file);
            }
            return java.util.OptionalLong.of(
                    Long.parseLong(Files.readString(file).trim()));
        } catch (IOException | NumberFormatException e) {
            throw new IllegalStateException("snapshot file unreadable: " + file + ": " + e.getMessage(), e);
        }
    }

    private static void verify(SnapshotReader reader, Path source) throws IOException {
        for (String name : reader.listFiles()) {
            if (!name.startsWith(DIR + "/")) {
                continue;
            }
            Path file = source.resolve(name.substring(DIR.length() + 1));
            if (!Files.exists(file)) {
                throw new IllegalStateException("snapshot file missing: " + file);
            }
            String expected = ((LocalFileMeta) reader.getFileMeta(name)).getChecksum();
            String actual = crc(file);
            if (!expected.equals(actual)) {
                throw new IllegalStateException(
                        "snapshot file corrupted (checksum " + actual + ", expected " + expected + "): " + file);
            }
        }
    }

    private static List<Path> files(Path dir) throws IOException {
        try (Stream<Path> list = Files.list(dir)) {
            return list.filter(Files::isRegularFile).sorted().toList();
        }
    }

    private static String crc(Path file) throws IOException {
        CRC32C crc = new CRC32C();
        byte[] buf = new byte[64 * 1024];
        try (InputStream in = Files.newInputStream(file)) {
            for (int n; (n = in.read(buf)) > 0; ) {
                crc.update(buf, 0, n);
            }
        }
        return Long.toHexString(crc.getValue());
    }
}
