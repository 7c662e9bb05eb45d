package io.lodestar.kv;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Map;
import java.util.stream.Stream;

/**
 * A checkpoint of the whole store, in {@code dir} until closed: the Raft log index its store had
 * applied, its revision, and the number of keys of each keyspace (the store's own included).
 * Closing it deletes the directory.
 */
public record StoreCheckpoint(Path dir, long appliedIndex, long revision, Map<String, Long> keys)
        implements AutoCloseable {
    public StoreCheckpoint {
        keys = Map.copyOf(keys);
    }

    @Override
    public void close() {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> walk = Files.walk(dir)) {
            for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot delete the checkpoint in " + dir, e);
        }
    }
}
