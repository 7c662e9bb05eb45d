package io.lodestar.kv.raft;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.Comparator;
import java.util.stream.Stream;

/**
 * The state machine's RocksDB lives in a generation directory under {@code kv/}; the file
 * {@code kv/ACTIVE} names the live one. Installing a snapshot builds a new generation beside the
 * live one and then replaces {@code ACTIVE} with an atomic rename, so a crash at any point leaves
 * either the old store or the new one, never a mix.
 */
final class KvDirectory {
    private static final String ACTIVE = "ACTIVE";
    private static final String PREFIX = "gen-";

    private final Path root;

    KvDirectory(Path root) {
        this.root = root;
    }

    /** The live generation; creates {@code gen-1} on first use. */
    Path active() {
        try {
            Files.createDirectories(root);
            Path pointer = root.resolve(ACTIVE);
            if (!Files.exists(pointer)) {
                Path first = root.resolve(PREFIX + 1);
                activate(first);
                return first;
            }
            String name = Files.readString(pointer, StandardCharsets.UTF_8).trim();
            if (!name.startsWith(PREFIX)) {
                throw new IllegalStateException("corrupt store pointer " + pointer + ": '" + name + "'");
            }
            return root.resolve(name);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the store pointer in " + root, e);
        }
    }

    /** An empty directory for the next generation. */
    Path nextGeneration() {
        long next = generationNumber(active()) + 1;
        Path dir = root.resolve(PREFIX + next);
        deleteTree(dir);
        return dir;
    }

    /** Makes {@code generation} the live one (durably), then deletes every other generation. */
    void activate(Path generation) {
        try {
            Path tmp = root.resolve(ACTIVE + ".tmp");
            Files.writeString(tmp, generation.getFileName().toString(), StandardCharsets.UTF_8);
            try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.WRITE)) {
                ch.force(true);
            }
            Files.move(tmp, root.resolve(ACTIVE), StandardCopyOption.ATOMIC_MOVE);
            try (FileChannel dir = FileChannel.open(root, StandardOpenOption.READ)) {
                dir.force(true);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot switch the store to " + generation, e);
        }
    }

    /** Deletes generations other than the live one (left by a crash during an install). */
    void deleteStale() {
        Path live = active();
        try (Stream<Path> children = Files.list(root)) {
            children.filter(p -> p.getFileName().toString().startsWith(PREFIX) && !p.equals(live))
                    .forEach(KvDirectory::deleteTree);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot list " + root, e);
        }
    }

    private static long generationNumber(Path generation) {
        return Long.parseLong(generation.getFileName().toString().substring(PREFIX.length()));
    }

    static void deleteTree(Path dir) {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> walk = Files.walk(dir)) {
            for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot delete " + dir, e);
        }
    }

    /** The bytes of the regular files directly in {@code dir}; 0 where it cannot be listed. */
    static long sizeOf(Path dir) {
        try (var files = Files.list(dir)) {
            return files.mapToLong(f -> {
                        try {
                            return Files.isRegularFile(f) ? Files.size(f) : 0;
                        } catch (java.io.IOException e) {
                            return 0; // deleted meanwhile (a compaction)
                        }
                    })
                    .sum();
        } catch (java.io.IOException e) {
            return 0;
        }
    }
}
