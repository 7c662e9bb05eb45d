package io.lodestar.api.cli;

import io.lodestar.api.limits.ByteSize;
import io.lodestar.api.limits.Limit;
import io.lodestar.api.limits.Limits;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Pattern;
import picocli.CommandLine;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.ParseResult;

/**
 * Where {@code lodestar server} takes a setting that its command line leaves out: the environment
 * variable {@code LODESTAR_<NAME>}, else the settings file, else the option's built-in default. So
 * a flag beats the environment, which beats the file. A setting has one name in each place: option
 * {@code --data-dir}, file key {@code data-dir}, variable {@code LODESTAR_DATA_DIR}; a limit is its
 * own key in the file ({@code http.body-bytes = 8MiB}, as {@code --limit http.body-bytes=8MiB}) and
 * {@code LODESTAR_LIMIT_HTTP_BODY_BYTES} in the environment.
 *
 * <p>Picocli asks it, as the command's default value provider, for every option the command line
 * did not give, once parsing is done (so {@code --config} is known by then). Limits are not one
 * option's value but one value each, merged setting by setting, so the command takes them from
 * {@link #limitSettings()} instead. The file is {@code --config FILE}, else {@code
 * $LODESTAR_CONFIG}, else {@code conf/lodestar.properties} beside lodestar.jar when it exists.
 *
 * <p>Every key of the file and every {@code LODESTAR_*} variable is checked at the first use, all
 * at once: one that names no setting, or whose value is not a number, size, switch or boolean where
 * the option takes one, is a {@link CommandLine.ParameterException} (exit 2) naming the file and
 * line, or the variable. Checks that need the other settings (a port range, a peer list) stay with
 * the command, which names the source through {@link #origin(String)}. Not thread-safe: used on the
 * main thread during start-up only.
 */
public final class ServerSettingSources implements CommandLine.IDefaultValueProvider {
    static final String CONFIG_ENV = "LODESTAR_CONFIG";
    static final String LIMIT_ENV_PREFIX = "LODESTAR_LIMIT_";
    private static final String ENV_PREFIX = "LODESTAR_";

    /**
     * {@code LODESTAR_*} variables that are not settings of the server and that it lets be: the
     * launcher's (bin/lodestar), the CLI client's, the settings file's and the cluster secret (which
     * the server reads itself, never from a file or flag). Any other is refused, so that a misspelt
     * setting does not go unnoticed. A new variable elsewhere must be added here.
     */
    static final Set<String> NOT_SETTINGS = Set.of(
            "LODESTAR_JAVA_OPTS",
            "LODESTAR_JAR",
            "LODESTAR_CDS",
            "LODESTAR_PASSWORD",
            "LODESTAR_TOKEN",
            "LODESTAR_NEW_PASSWORD",
            "LODESTAR_SERVER",
            "LODESTAR_FROM_PASSWORD",
            CONFIG_ENV,
            ServerCommand.CLUSTER_SECRET_ENV);

    /** Options that neither the file nor the environment set, each with the reason a refusal gives. */
    private static final Map<String, String> NOT_SETTABLE = Map.of(
            "config",
            "the settings file does not name another; give --config or " + CONFIG_ENV,
            "limit",
            "set each limit by its own key, e.g. http.body-bytes = 8MiB (LODESTAR_LIMIT_HTTP_BODY_BYTES)",
            "cluster-secret",
            "a secret is not read from this file; give cluster-secret-file (mode 0600) or "
                    + ServerCommand.CLUSTER_SECRET_ENV,
            "force-new-cluster",
            "a recovery for one start, never a standing setting (it would drop re-added members at every"
                    + " restart); give --force-new-cluster on that start's command line");

    private static final Pattern SECRET_NAME = Pattern.compile("(^|[-.])(password|secret|token|key)([-.]|$)");

    /** A value and where it came from, as a refusal and the start-up summary name it. */
    record Sourced(String value, String origin) {}

    private final Map<String, String> env;
    private final Path defaultFile;
    private boolean loaded;
    private Path file;
    private String fileNote;
    private final Map<String, Sourced> options = new LinkedHashMap<>();
    private final Map<Limit, Sourced> limits = new LinkedHashMap<>();

    /** The sources of a real start: this process's environment, the file beside lodestar.jar. */
    public ServerSettingSources() {
        this(System.getenv(), besideJar());
    }

    /** @param defaultFile the file read when neither --config nor LODESTAR_CONFIG names one (may be null) */
    ServerSettingSources(Map<String, String> env, Path defaultFile) {
        this.env = Map.copyOf(env);
        this.defaultFile = defaultFile;
    }

    @Override
    public String defaultValue(ArgSpec arg) {
        if (!(arg instanceof OptionSpec option)) {
            return null;
        }
        load(arg.command());
        Sourced s = options.get(key(option));
        return s == null ? null : s.value();
    }

    /**
     * Reads the file and the environment and checks every setting in them, once; later calls return
     * at once. Picocli calls it through {@link #defaultValue}; the command calls it too, for a
     * command line that leaves no option to a default.
     */
    void load(CommandSpec spec) {
        if (loaded) {
            return;
        }
        // once only, also when it fails: picocli asks again while printing the usage after the error
        loaded = true;
        try {
            readFile(spec);
            readEnvironment(spec);
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
        }
    }

    /** The value of a variable of this process's environment (as given to the constructor). */
    String env(String name) {
        return env.get(name);
    }

    /**
     * Where an option's value came from when that was the file or the environment, e.g. {@code
     * /etc/lodestar.properties line 3}; null when it came from the command line or a default.
     */
    String origin(String option) {
        Sourced s = options.get(option.startsWith("--") ? option.substring(2) : option);
        return s == null ? null : s.origin();
    }

    /** The limits the file and the environment set, as {@code NAME=VALUE}, already checked; flags go after. */
    List<String> limitSettings() {
        return limits.entrySet().stream()
                .map(e -> e.getKey().key() + "=" + e.getValue().value())
                .toList();
    }

    /**
     * What the start-up log says of the settings: the file read (or that none was), then each
     * setting given anywhere whose value is not its default, with where it came from. Secrets are
     * masked; a file's path is shown, not its content.
     */
    List<String> summary(CommandSpec spec, ParseResult parsed) {
        List<String> lines = new ArrayList<>();
        lines.add(file != null ? "settings file: " + file : "settings file: none (" + fileNote + ")");
        for (OptionSpec o : spec.options()) {
            String key = key(o);
            if (o.usageHelp() || o.versionHelp() || key.equals("config") || key.equals("limit")) {
                continue;
            }
            Sourced s = parsed.hasMatchedOption(o)
                    ? new Sourced(
                            String.join(
                                    ",", parsed.matchedOption(o.longestName()).originalStringValues()),
                            "the command line")
                    : options.get(key);
            String byDefault = o.defaultValue() != null ? o.defaultValue() : o.type() == boolean.class ? "false" : null;
            if (s != null && !s.value().equals(byDefault)) {
                lines.add(key + " = " + shown(key, s.value()) + " (from " + s.origin() + ")");
            }
        }
        Map<Limit, Sourced> allLimits = new TreeMap<>(limits);
        OptionSpec limitOption = spec.findOption("--limit");
        if (limitOption != null && parsed.hasMatchedOption(limitOption)) {
            for (String setting : parsed.matchedOption("--limit").originalStringValues()) {
                int eq = setting.indexOf('=');
                if (eq > 0) {
                    try {
                        allLimits.put(
                                Limit.byKey(setting.substring(0, eq).trim()),
                                new Sourced(setting.substring(eq + 1).trim(), "the command line"));
                    } catch (IllegalArgumentException e) {
                        // the command refuses it, naming it
                    }
                }
            }
        }
        allLimits.forEach((limit, s) -> {
            if (!isDefault(limit, s.value())) {
                lines.add(limit.key() + " = " + s.value() + " (from " + s.origin() + ")");
            }
        });
        String secret = env.get(ServerCommand.CLUSTER_SECRET_ENV);
        if (secret != null && !secret.isBlank()) {
            lines.add("cluster-secret = " + shown("cluster-secret", secret) + " (from environment variable "
                    + ServerCommand.CLUSTER_SECRET_ENV + ")");
        }
        return lines;
    }

    /**
     * The value as the log may show it: masked when the setting is a password, secret, token or
     * key, shown when it is the path of a file holding one.
     */
    static String shown(String key, String value) {
        return SECRET_NAME.matcher(key).find() && !key.endsWith("-file") ? "****" : value;
    }

    /** The file and environment variable name of each option that they may set. */
    static Map<String, OptionSpec> settable(CommandSpec spec) {
        Map<String, OptionSpec> settable = new LinkedHashMap<>();
        for (OptionSpec o : spec.options()) {
            if (!o.usageHelp() && !o.versionHelp() && !NOT_SETTABLE.containsKey(key(o))) {
                settable.put(key(o), o);
            }
        }
        return settable;
    }

    /** An option's key in the file: its long name without the dashes. */
    static String key(OptionSpec option) {
        return option.longestName().replaceFirst("^-+", "");
    }

    /** {@code data-dir} → {@code LODESTAR_DATA_DIR}. */
    static String envName(String key) {
        return ENV_PREFIX + key.toUpperCase(Locale.ROOT).replace('-', '_').replace('.', '_');
    }

    /** {@code http.body-bytes} → {@code LODESTAR_LIMIT_HTTP_BODY_BYTES}. */
    static String envName(Limit limit) {
        return LIMIT_ENV_PREFIX + envName(limit.key()).substring(ENV_PREFIX.length());
    }

    private void readFile(CommandSpec spec) {
        OptionSpec configOption = spec.findOption("--config");
        Path flag = configOption == null ? null : configOption.getValue();
        String fromEnv = env.get(CONFIG_ENV);
        Path named = flag != null ? flag : fromEnv != null && !fromEnv.isBlank() ? Path.of(fromEnv.trim()) : null;
        Path path = named != null ? named : defaultFile;
        if (path == null) {
            fileNote = "no --config or " + CONFIG_ENV;
            return;
        }
        if (named == null && !Files.exists(path)) {
            fileNote = "no " + path;
            return;
        }
        String namedBy = flag != null ? "--config" : CONFIG_ENV;
        SettingsFile read;
        try {
            read = SettingsFile.read(path);
        } catch (NoSuchFileException e) {
            throw new IllegalArgumentException(namedBy + ": " + path + " does not exist");
        } catch (IOException e) {
            throw new IllegalArgumentException(namedBy + " " + path + ": cannot read it: " + e);
        }
        file = path.toAbsolutePath().normalize();
        Map<String, OptionSpec> settable = settable(spec);
        for (Map.Entry<String, SettingsFile.Entry> e : read.entries.entrySet()) {
            String key = e.getKey();
            String value = e.getValue().value();
            String origin = file + " line " + e.getValue().line();
            String where = origin + ": " + key;
            OptionSpec option = settable.get(key);
            if (option != null) {
                options.put(key, new Sourced(check(option, value, where), origin));
            } else if (isLimit(key)) {
                limits.put(Limit.byKey(key), new Sourced(checkLimit(key, value, where), origin));
            } else if (NOT_SETTABLE.containsKey(key)) {
                throw new IllegalArgumentException(where + ": not settable in the file: " + NOT_SETTABLE.get(key));
            } else {
                throw new IllegalArgumentException(
                        where + " is not a setting of lodestar server;" + " conf/lodestar.properties lists them all");
            }
        }
    }

    private void readEnvironment(CommandSpec spec) {
        Map<String, OptionSpec> byEnv = new LinkedHashMap<>();
        settable(spec).forEach((key, option) -> byEnv.put(envName(key), option));
        Map<String, Limit> limitsByEnv = new LinkedHashMap<>();
        for (Limit l : Limit.values()) {
            limitsByEnv.put(envName(l), l);
        }
        for (String name : new TreeMap<>(env).keySet()) {
            if (!name.startsWith(ENV_PREFIX) || NOT_SETTINGS.contains(name)) {
                continue;
            }
            String value = env.get(name).trim();
            String origin = "environment variable " + name;
            OptionSpec option = byEnv.get(name);
            Limit limit = limitsByEnv.get(name);
            if (option != null) {
                options.put(key(option), new Sourced(check(option, value, origin), origin));
            } else if (limit != null) {
                limits.put(limit, new Sourced(checkLimit(limit.key(), value, origin), origin));
            } else {
                throw new IllegalArgumentException(origin + " is not a setting of lodestar server (a setting is"
                        + " LODESTAR_ and its option's name, e.g. LODESTAR_DATA_DIR, or LODESTAR_LIMIT_ and a"
                        + " limit's, e.g. LODESTAR_LIMIT_HTTP_BODY_BYTES); unset it");
            }
        }
    }

    /** The value, if it is one the option takes as far as its type tells; else a refusal naming the origin. */
    private static String check(OptionSpec option, String value, String origin) {
        if (value.isEmpty()) {
            throw new IllegalArgumentException(origin + ": no value; leave it out (or commented out) for the default");
        }
        Class<?> type = option.type();
        try {
            if (type == int.class || type == Integer.class) {
                Integer.parseInt(value);
            } else if (type == long.class || type == Long.class) {
                Long.parseLong(value);
            } else if (type == boolean.class || type == Boolean.class) {
                if (!value.equalsIgnoreCase("true") && !value.equalsIgnoreCase("false")) {
                    throw new IllegalArgumentException("'" + value + "' is not true or false");
                }
            } else if (type.isEnum()) {
                if (Arrays.stream(type.getEnumConstants())
                        .noneMatch(c -> c.toString().equalsIgnoreCase(value))) {
                    throw new IllegalArgumentException(
                            "'" + value + "' is not one of " + Arrays.toString(type.getEnumConstants()));
                }
            } else if ("SIZE".equals(option.paramLabel())) {
                ByteSize.parse(value);
            }
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(origin + ": '" + value + "' is not a whole number");
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(origin + ": " + e.getMessage());
        }
        return value;
    }

    private static String checkLimit(String key, String value, String origin) {
        try {
            Limits.parse(List.of(key + "=" + value));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(origin + ": " + e.getMessage());
        }
        return value;
    }

    private static boolean isDefault(Limit limit, String value) {
        try {
            return Limits.parse(List.of(limit.key() + "=" + value)).get(limit) == limit.defaultValue();
        } catch (IllegalArgumentException e) {
            return false;
        }
    }

    private static boolean isLimit(String key) {
        return Arrays.stream(Limit.values()).anyMatch(l -> l.key().equals(key));
    }

    /** {@code conf/lodestar.properties} in the directory of the jar this class runs from; null outside a jar. */
    private static Path besideJar() {
        try {
            var source = ServerSettingSources.class.getProtectionDomain().getCodeSource();
            if (source == null) {
                return null;
            }
            Path location = Path.of(source.getLocation().toURI());
            return location.toString().endsWith(".jar")
                    ? location.toAbsolutePath().getParent().resolve("conf").resolve("lodestar.properties")
                    : null;
        } catch (Exception e) {
            return null;
        }
    }
}
