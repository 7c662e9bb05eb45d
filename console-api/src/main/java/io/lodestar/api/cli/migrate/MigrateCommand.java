package io.lodestar.api.cli.migrate;

import io.lodestar.api.cli.client.ClientCommand;
import io.lodestar.api.cli.client.CommandFailure;
import io.lodestar.api.cli.client.Credentials;
import io.lodestar.api.cli.client.ExitCodes;
import io.lodestar.api.cli.client.LodestarClient;
import io.lodestar.api.cli.client.Output;
import java.io.IOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code lodestar migrate}: copies a running Nacos's namespaces, configs (with their betas),
 * persistent services and instances, users, roles and permissions into the Lodestar that {@code
 * --server} names, through both sides' HTTP APIs. Which API the source speaks is found out first
 * ({@link #reader}). Re-running copies only what changed; {@code --dry-run} writes nothing.
 */
@Command(
        name = "migrate",
        mixinStandardHelpOptions = true,
        description = "Copy a running Nacos (2.x or 3.x) into Lodestar: namespaces, configs and their betas,"
                + " persistent services and instances, users, roles and permissions. Items already equal are"
                + " left alone; nothing is deleted. Exit 1 if any item failed.")
public final class MigrateCommand extends ClientCommand {
    /** The source user's password, when not typed at the prompt. */
    public static final String FROM_PASSWORD_ENV = "LODESTAR_FROM_PASSWORD";

    @Option(
            names = "--from",
            required = true,
            paramLabel = "URL",
            description =
                    "The Nacos to copy from, e.g. http://nacos:8848 (https:// with a certificate the JVM trusts).")
    String from;

    @Option(
            names = "--from-username",
            paramLabel = "USER",
            description = "Log in to the source as this user; the password from $" + FROM_PASSWORD_ENV
                    + ", else a prompt. Without it, the source is read without logging in (Nacos with auth off).")
    String fromUsername;

    @Option(
            names = "--from-namespace",
            paramLabel = "ID",
            description = "Copy this namespace (repeatable; 'public' for the public one). Default: the public one.")
    List<String> fromNamespaces;

    @Option(names = "--from-namespace-all", description = "Copy every namespace of the source.")
    boolean allNamespaces;

    @Option(
            names = "--from-group",
            paramLabel = "GROUP",
            split = ",",
            description = "Also look for services in this group (repeatable). Needed only for a source that cannot"
                    + " list services across groups (Lodestar, Nacos without its console API); DEFAULT_GROUP and"
                    + " the groups of the copied configs are looked in anyway.")
    List<String> groups;

    @Option(
            names = "--new-passwords-file",
            paramLabel = "PATH",
            description = "Create the source's users that the target lacks with generated passwords, written to"
                    + " this file (created readable by its owner only) as 'user password' lines. Without it such"
                    + " users are reported as failed: Nacos never gives out passwords.")
    Path newPasswords;

    @Option(names = "--dry-run", description = "Print what would change, and write nothing.")
    boolean dryRun;

    @Override
    protected int run(LodestarClient target, Output out) throws IOException, InterruptedException {
        if (allNamespaces && fromNamespaces != null) {
            throw new CommandFailure(ExitCodes.USAGE, "--from-namespace and --from-namespace-all exclude each other");
        }
        SourceReader source = reader(
                sourceUrl(from),
                Credentials.forUser(fromUsername, FROM_PASSWORD_ENV, "at the source", System.getenv()));
        Set<String> wanted = null;
        if (!allNamespaces) {
            wanted = new HashSet<>();
            for (String n : fromNamespaces == null ? List.of("") : fromNamespaces) {
                wanted.add(Items.namespaceId(n));
            }
        }
        System.err.println("reading " + from + " through the " + source.describe()
                + (dryRun ? " (dry run: nothing is written)" : ""));
        Summary summary = new Summary(dryRun);
        new Migration(
                        source,
                        new LodestarTarget(target),
                        summary,
                        dryRun,
                        newPasswords == null ? null : new NewPasswords(newPasswords),
                        line -> {
                            if (!out.json()) {
                                System.out.println(summary.describe(line));
                            }
                        })
                .run(wanted, groups == null ? Set.of() : Set.copyOf(groups));
        summary.print(out, System.out);
        return summary.anyFailed() ? ExitCodes.FAILED : ExitCodes.OK;
    }

    /**
     * {@code --from} as a server address: {@code http(s)://host[:port]}, {@code http://} when no
     * scheme is given, a trailing {@code /nacos} (the context path) dropped; anything else is a
     * usage error naming {@code --from}.
     */
    static String sourceUrl(String from) {
        String s = from.trim();
        boolean hasScheme = s.contains("://");
        while (s.endsWith("/")) {
            s = s.substring(0, s.length() - 1);
        }
        if (s.endsWith("/nacos")) {
            s = s.substring(0, s.length() - "/nacos".length());
        }
        String withScheme = hasScheme ? s : "http://" + s;
        URI uri;
        try {
            uri = new URI(withScheme);
        } catch (URISyntaxException e) {
            uri = null;
        }
        if (uri == null
                || !("http".equals(uri.getScheme()) || "https".equals(uri.getScheme()))
                || uri.getHost() == null
                || !(uri.getRawPath() == null || uri.getRawPath().isEmpty())
                || uri.getRawQuery() != null) {
            throw new CommandFailure(
                    ExitCodes.USAGE, "--from: '" + from + "' is not a Nacos address such as http://nacos:8848");
        }
        return withScheme;
    }

    /**
     * The reader for the source's API: 3.x if it answers Nacos 3's {@code /nacos/v3/admin/core/state}
     * (open to anyone there), else 2.x's v1; then a client that logs in at that version's path.
     */
    static SourceReader reader(String from, Credentials credentials) throws IOException, InterruptedException {
        LodestarClient probe = LodestarClient.of(
                List.of(from),
                null,
                Credentials.forUser(null, FROM_PASSWORD_ENV, "", java.util.Map.of()),
                NacosV1Reader.LOGIN);
        // Nacos 3 answers its state (or asks for a login); a 2.x server or Lodestar has no such route
        // and answers 404 or, where another method's route matches the path, 405
        int state = probe.get(NacosV3Reader.STATE).send().status();
        boolean v3 = state / 100 == 2 || state == 401 || state == 403;
        LodestarClient client =
                LodestarClient.of(List.of(from), null, credentials, v3 ? NacosV3Reader.LOGIN : NacosV1Reader.LOGIN);
        SourceHttp http = SourceHttp.over(client);
        return v3 ? new NacosV3Reader(http) : new NacosV1Reader(http);
    }
}
