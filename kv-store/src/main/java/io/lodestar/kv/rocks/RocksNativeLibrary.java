package io.lodestar.kv.rocks;

import java.io.IOException;
import java.io.InputStream;
import java.net.JarURLConnection;
import java.net.URL;
import java.net.URLConnection;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.Locale;
import java.util.jar.JarEntry;
import org.rocksdb.RocksDB;
import org.rocksdb.util.Environment;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Loads RocksDB's JNI library from a copy kept under the data directory. RocksDB's own loader
 * inflates the large library from the jar into a fresh temp file on every start, which slows
 * start-up, and deletes it only on a clean exit, so each kill -9 leaves a copy behind in /tmp. The copy here is made once per library build (named by the jar
 * entry's CRC, written to a temp name and renamed into place, so a crash mid-copy leaves nothing a
 * later start would load) and sits in a directory only this server writes. Anything unexpected
 * falls back to RocksDB's loader.
 */
public final class RocksNativeLibrary {
    private static final Logger LOG = LoggerFactory.getLogger(RocksNativeLibrary.class);
    private static final String DIR_PREFIX = "rocksdbjni-";

    private RocksNativeLibrary() {}

    /** Loads the library, keeping its copy under {@code cacheDir}; idempotent. */
    public static synchronized void load(Path cacheDir) {
        try {
            Path dir = cachedCopy(cacheDir);
            if (dir != null) {
                RocksDB.loadLibrary(List.of(dir.toString()));
                return;
            }
        } catch (IOException | RuntimeException | UnsatisfiedLinkError e) {
            LOG.info(
                    "RocksDB's library cannot be loaded from {} ({}); extracting it to a temp file instead",
                    cacheDir,
                    e.toString());
        }
        RocksDB.loadLibrary();
    }

    /** The directory holding an intact copy of the jar's library, or null where there is no jar entry. */
    static Path cachedCopy(Path cacheDir) throws IOException {
        URL url = RocksDB.class.getClassLoader().getResource(Environment.getJniLibraryFileName("rocksdb"));
        if (url == null) {
            return null;
        }
        URLConnection connection = url.openConnection();
        if (!(connection instanceof JarURLConnection jar)) {
            return null;
        }
        JarEntry entry = jar.getJarEntry();
        if (entry.getCrc() < 0 || entry.getSize() < 0) {
            return null;
        }
        Path dir = cacheDir.resolve(DIR_PREFIX + String.format(Locale.ROOT, "%08x", entry.getCrc()));
        // the name RocksDB.loadLibrary(paths) looks for in each path
        Path library = dir.resolve(Environment.getJniLibraryFileName("rocksdbjni"));
        if (Files.isRegularFile(library) && Files.size(library) == entry.getSize()) {
            return dir;
        }
        Files.createDirectories(dir);
        Path partial = Files.createTempFile(dir, "partial-", ".so");
        try (InputStream in = connection.getInputStream()) {
            Files.copy(in, partial, StandardCopyOption.REPLACE_EXISTING);
            Files.move(partial, library, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } finally {
            Files.deleteIfExists(partial);
        }
        removeOtherBuilds(cacheDir, dir);
        LOG.info("RocksDB's library copied to {}", library);
        return dir;
    }

    /** Copies left by other builds of the server: never loaded again, and each is large. */
    private static void removeOtherBuilds(Path cacheDir, Path keep) {
        try (DirectoryStream<Path> dirs = Files.newDirectoryStream(cacheDir, DIR_PREFIX + "*")) {
            for (Path old : dirs) {
                if (!old.equals(keep)) {
                    try (DirectoryStream<Path> files = Files.newDirectoryStream(old)) {
                        for (Path f : files) {
                            Files.deleteIfExists(f);
                        }
                    }
                    Files.deleteIfExists(old);
                }
            }
        } catch (IOException e) {
            LOG.debug("could not remove old RocksDB library copies under {}: {}", cacheDir, e.toString());
        }
    }
}
