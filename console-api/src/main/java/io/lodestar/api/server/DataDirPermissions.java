package io.lodestar.api.server;

import java.io.IOException;
import java.nio.file.FileSystemLoopException;
import java.nio.file.FileVisitOption;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.EnumSet;
import java.util.Set;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps a node's data directory its owner's alone: the directory and every directory under it
 * {@code 0700}, every file {@code 0600} (group and others hold no bit; the owner's bits stay as
 * they are). The store's files (RocksDB in {@code kv/}, the Raft log and snapshots in {@code
 * raft/}) hold the token signing key, every password hash and every config, so a local user who
 * can read them can forge an admin's token.
 *
 * <p>{@link #secure} runs once per start, before anything else opens the directory:
 *
 * <ol>
 *   <li>sets the process umask to 077 ({@link ProcessUmask}), so that every file the store, JRaft,
 *       the audit log and the server create from then on (new SST files, Raft log segments,
 *       snapshots, rolled audit files) is born owner-only, with no later fix-up to race;
 *   <li>creates the directory {@code 0700} if it is missing;
 *   <li>takes group's and others' bits off every path already under it, symbolic links followed,
 *       and logs each path it tightened: a directory an older build wrote, a volume made with the
 *       default umask, a copy made with {@code cp -r}. Tightening rather than refusing: the files
 *       are the server's own, and a refusal would only make the operator run the same {@code
 *       chmod} by hand on every upgrade;
 *   <li>creates a probe directory and checks its mode, so a process whose new files would still be
 *       readable by others (no libc binding and an open umask) does not start.
 * </ol>
 *
 * A path it cannot tighten (another user's, a read-only file system, one that ignores {@code
 * chmod}) stops the start with an {@link IllegalStateException} naming it; the server then exits
 * with code 1.
 */
public final class DataDirPermissions {
    private static final Logger LOG = LoggerFactory.getLogger(DataDirPermissions.class);
    private static final Set<PosixFilePermission> NOT_OWNER = EnumSet.of(
            PosixFilePermission.GROUP_READ,
            PosixFilePermission.GROUP_WRITE,
            PosixFilePermission.GROUP_EXECUTE,
            PosixFilePermission.OTHERS_READ,
            PosixFilePermission.OTHERS_WRITE,
            PosixFilePermission.OTHERS_EXECUTE);
    private static final Set<PosixFilePermission> DIRECTORY = PosixFilePermissions.fromString("rwx------");

    private DataDirPermissions() {}

    /** Makes {@code dataDir} and everything in it owner-only, and every file created later too; see the class. */
    public static void secure(Path dataDir) {
        String umaskFailure = ProcessUmask.restrictToOwner();
        create(dataDir);
        tightenTree(dataDir);
        checkNewFilesAreOwnerOnly(dataDir, umaskFailure);
    }

    private static void create(Path dataDir) {
        if (Files.isDirectory(dataDir)) {
            return;
        }
        try {
            Path parent = dataDir.getParent();
            if (parent != null) {
                Files.createDirectories(parent);
            }
            Files.createDirectory(dataDir, PosixFilePermissions.asFileAttribute(DIRECTORY));
        } catch (java.nio.file.FileAlreadyExistsException raced) {
            if (!Files.isDirectory(dataDir)) {
                throw new IllegalStateException("the data dir " + dataDir + " is not a directory", raced);
            }
            // another start made it meanwhile; the walk below checks its mode
        } catch (IOException e) {
            throw new IllegalStateException("cannot create the data dir " + dataDir + ": " + e, e);
        }
    }

    private static void tightenTree(Path dataDir) {
        try {
            Files.walkFileTree(
                    dataDir, EnumSet.of(FileVisitOption.FOLLOW_LINKS), Integer.MAX_VALUE, new SimpleFileVisitor<>() {
                        @Override
                        public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs) {
                            tighten(dir);
                            return FileVisitResult.CONTINUE;
                        }

                        @Override
                        public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) {
                            tighten(file);
                            return FileVisitResult.CONTINUE;
                        }

                        @Override
                        public FileVisitResult visitFileFailed(Path file, IOException e) {
                            if (e instanceof NoSuchFileException || e instanceof FileSystemLoopException) {
                                return FileVisitResult
                                        .CONTINUE; // gone meanwhile, or a link back to a visited directory
                            }
                            throw refusal(file, e.toString());
                        }
                    });
        } catch (IOException e) {
            throw refusal(dataDir, e.toString());
        }
    }

    /** Takes group's and others' bits off {@code path} (the target, for a link), logging it. */
    private static void tighten(Path path) {
        try {
            Set<PosixFilePermission> mode = Files.getPosixFilePermissions(path);
            if (ownerOnly(mode)) {
                return;
            }
            Set<PosixFilePermission> tight = EnumSet.noneOf(PosixFilePermission.class);
            tight.addAll(mode);
            tight.removeAll(NOT_OWNER);
            Files.setPosixFilePermissions(path, tight);
            Set<PosixFilePermission> after = Files.getPosixFilePermissions(path);
            if (!ownerOnly(after)) {
                throw refusal(path, "its mode stays " + PosixFilePermissions.toString(after) + " after chmod");
            }
            LOG.warn(
                    "tightened {} from {} to {}: the data dir holds the token key and the password hashes",
                    path,
                    PosixFilePermissions.toString(mode),
                    PosixFilePermissions.toString(after));
        } catch (NoSuchFileException gone) {
            // deleted meanwhile (a stale generation, a temp file): nothing left to protect
        } catch (IOException | UnsupportedOperationException e) {
            throw refusal(path, e.toString());
        }
    }

    /** What a file and a directory created now get; refuses a start whose new files others could read. */
    private static void checkNewFilesAreOwnerOnly(Path dataDir, String umaskFailure) {
        Path probe = dataDir.resolve(".mode-probe-" + UUID.randomUUID());
        Set<PosixFilePermission> born;
        try {
            Files.createDirectory(probe);
            try {
                born = Files.getPosixFilePermissions(probe);
            } finally {
                Files.delete(probe);
            }
        } catch (IOException e) {
            throw new IllegalStateException("cannot create a file in the data dir " + dataDir + ": " + e, e);
        }
        if (!ownerOnly(born)) {
            throw new IllegalStateException("a directory created in " + dataDir + " gets the mode "
                    + PosixFilePermissions.toString(born) + ", readable by others, and this process cannot set its"
                    + " umask (" + umaskFailure + "): start the server under 'umask 077' (bin/lodestar and the"
                    + " image do)");
        }
        if (umaskFailure != null) {
            LOG.info("cannot set the process umask ({}); the one inherited is owner-only already", umaskFailure);
        }
    }

    private static boolean ownerOnly(Set<PosixFilePermission> mode) {
        for (PosixFilePermission p : mode) {
            if (NOT_OWNER.contains(p)) {
                return false;
            }
        }
        return true;
    }

    private static IllegalStateException refusal(Path path, String reason) {
        return new IllegalStateException("the data dir must be readable by its owner only, and " + path
                + " cannot be made so (" + reason + "): chmod go-rwx it as its owner, or give another --data-dir");
    }
}
