package io.lodestar.api.cli.snapshot;

import io.lodestar.api.cli.client.Call;
import io.lodestar.api.cli.client.ClientCommand;
import io.lodestar.api.cli.client.CommandFailure;
import io.lodestar.api.cli.client.ExitCodes;
import io.lodestar.api.cli.client.LodestarClient;
import io.lodestar.api.cli.client.Output;
import io.lodestar.api.cli.client.Reply;
import io.lodestar.api.server.DataDirPermissions;
import io.lodestar.api.server.LodestarServer;
import io.lodestar.kv.backup.BackupFormat;
import io.lodestar.kv.backup.BackupFormatException;
import io.lodestar.kv.raft.StoreRestore;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code lodestar snapshot save|restore|inspect}: a whole-store snapshot file from a running group,
 * a new data directory from one, and what one holds (docs/operations.md, "Backup and restore").
 */
@Command(
        name = "snapshot",
        mixinStandardHelpOptions = true,
        description =
                "Save the whole store of a running group to a file, restore a new group from one, or inspect one.",
        subcommands = {SnapshotCommand.Save.class, SnapshotCommand.Restore.class, SnapshotCommand.Inspect.class})
public final class SnapshotCommand {
    private SnapshotCommand() {}

    @Command(
            name = "save",
            mixinStandardHelpOptions = true,
            description = "Save a consistent snapshot of the whole store, with every write acknowledged before the "
                    + "call, to FILE (mode 0600; admin only).")
    static final class Save extends ClientCommand {
        @Option(names = "--out", required = true, paramLabel = "FILE", description = "Where to write the snapshot.")
        Path out;

        @Override
        protected int run(LodestarClient client, Output output) throws IOException, InterruptedException {
            Path target = out.toAbsolutePath();
            Path partial = target.resolveSibling(target.getFileName() + ".partial");
            Files.deleteIfExists(partial);
            Files.createFile(
                    partial, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
            try {
                Reply reply = client.download("/lodestar/v1/snapshot", partial);
                if (!reply.ok()) {
                    throw Call.failure(reply);
                }
                BackupFormat.Contents contents = BackupFormat.verify(partial);
                Files.move(partial, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
                output.done("saved " + target + ": " + summary(contents));
                return ExitCodes.OK;
            } catch (BackupFormatException e) {
                throw new CommandFailure(ExitCodes.FAILED, "the snapshot received is unusable: " + e.getMessage());
            } finally {
                Files.deleteIfExists(partial);
            }
        }
    }

    @Command(
            name = "restore",
            mixinStandardHelpOptions = true,
            description = "Build a new data directory from a snapshot file, offline. Restore the same file for every "
                    + "member of the new group, with the same --peers, then start each on its directory.")
    static final class Restore implements Callable<Integer> {
        @Option(names = "--in", required = true, paramLabel = "FILE", description = "The snapshot file.")
        Path in;

        @Option(
                names = "--data-dir",
                required = true,
                paramLabel = "DIR",
                description = "The new member's data directory: missing or empty.")
        Path dataDir;

        @Option(
                names = "--peers",
                split = ",",
                paramLabel = "host:raftPort",
                description = "Every member of the new group, as each will be started with --peers "
                        + "(default: one node at ${DEFAULT-VALUE}, lodestar server's default address).",
                defaultValue = "127.0.0.1:7848")
        List<String> peers;

        @Override
        public Integer call() {
            try {
                Path dir = dataDir.toAbsolutePath().normalize();
                DataDirPermissions.secure(dir);
                BackupFormat.Contents contents =
                        StoreRestore.restore(in, dir, peers, LodestarServer.KEYSPACES, LodestarServer.COUNTED);
                System.out.println(
                        "restored " + in + " into " + dir + " for the group " + peers + ": " + summary(contents));
                System.out.println(
                        "start each member with --data-dir on its directory and --peers " + String.join(",", peers));
                return ExitCodes.OK;
            } catch (BackupFormatException | IllegalArgumentException e) {
                System.err.println("nothing restored: " + e.getMessage());
                return ExitCodes.USAGE;
            } catch (IOException | RuntimeException e) {
                System.err.println("restore failed, nothing left in " + dataDir + ": " + e.getMessage());
                return ExitCodes.FAILED;
            }
        }
    }

    @Command(
            name = "inspect",
            mixinStandardHelpOptions = true,
            description = "Check a snapshot file end to end and print its header and counts.")
    static final class Inspect implements Callable<Integer> {
        @Option(names = "--in", required = true, paramLabel = "FILE", description = "The snapshot file.")
        Path in;

        @Override
        public Integer call() {
            try {
                BackupFormat.Contents c = BackupFormat.verify(in);
                System.out.println("file          " + in.toAbsolutePath());
                System.out.println("format        " + c.header().format());
                System.out.println("revision      " + c.header().revision());
                System.out.println("applied index " + c.header().appliedIndex());
                System.out.println("created       " + c.header().created());
                System.out.println("cluster id    " + c.header().clusterId());
                System.out.println("taken on      " + c.header().node());
                System.out.println("files         " + c.files().size() + " (" + c.bytes() + " bytes), checksum ok");
                System.out.println("keys by keyspace:");
                c.header().keys().forEach((k, v) -> System.out.printf("  %-24s %d%n", k, v));
                return ExitCodes.OK;
            } catch (BackupFormatException e) {
                System.err.println(e.getMessage());
                return ExitCodes.FAILED;
            } catch (IOException e) {
                System.err.println("cannot read " + in + ": " + e.getMessage());
                return ExitCodes.FAILED;
            }
        }
    }

    private static String summary(BackupFormat.Contents c) {
        long keys =
                c.header().keys().values().stream().mapToLong(Long::longValue).sum();
        return "revision " + c.header().revision() + ", applied index "
                + c.header().appliedIndex() + ", " + keys + " keys, " + c.bytes() + " bytes";
    }
}
