package io.lodestar.it;

import io.lodestar.kv.testing.Await;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Assumptions;

/**
 * A terminal for the command line's interactive behaviour: a tmux server of the test's own (its
 * own socket, so no one else's sessions are touched) running a bash in a detached pane of 200x50,
 * which the test types into ({@link #type}, {@link #keys}) and reads ({@link #screen}: the pane's
 * whole history, wrapped lines joined). Skipped, with the reason, where tmux is not installed.
 */
final class Tmux implements AutoCloseable {
    private static final String SESSION = "cli";
    private final String socket = "lodestar-it-" + ProcessHandle.current().pid() + "-" + System.nanoTime();

    private Tmux() {}

    /** A pane running bash without the test's {@code LODESTAR_*} variables; skips the test without tmux. */
    static Tmux open() throws Exception {
        Assumptions.assumeTrue(installed(), "tmux is not installed (apt-get install tmux): terminal tests skipped");
        Tmux tmux = new Tmux();
        tmux.tmux("new-session", "-d", "-s", SESSION, "-x", "200", "-y", "50", "bash --noprofile --norc");
        return tmux;
    }

    private static boolean installed() {
        try {
            Process p =
                    new ProcessBuilder("tmux", "-V").redirectErrorStream(true).start();
            p.getInputStream().readAllBytes();
            return p.waitFor(10, TimeUnit.SECONDS) && p.exitValue() == 0;
        } catch (Exception e) {
            return false;
        }
    }

    /** Types {@code words} as one shell command line (each word single-quoted) and presses Enter. */
    void run(List<String> words) throws Exception {
        type(words.stream().map(Tmux::quote).collect(Collectors.joining(" ")) + "; echo \"exit=$?\"");
        keys("Enter");
    }

    /** Types {@code text} literally. */
    void type(String text) throws Exception {
        tmux("send-keys", "-t", SESSION, "-l", text);
    }

    /** Presses keys by tmux's names (Enter, C-c). */
    void keys(String... keys) throws Exception {
        List<String> args = new ArrayList<>(List.of("send-keys", "-t", SESSION));
        args.addAll(List.of(keys));
        tmux(args.toArray(String[]::new));
    }

    /** Everything the pane showed so far. */
    String screen() {
        try {
            return tmux("capture-pane", "-p", "-J", "-S", "-", "-t", SESSION);
        } catch (Exception e) {
            return "(cannot capture the pane: " + e + ")";
        }
    }

    /** Waits until the pane shows {@code text}; the failure shows the pane. */
    void await(Duration deadline, String text) {
        Await.until(deadline, "the terminal to show '" + text + "'", () -> screen().contains(text), this::screen);
    }

    @Override
    public void close() throws Exception {
        tmux("kill-server");
    }

    private String tmux(String... args) throws Exception {
        List<String> cmd = new ArrayList<>(List.of("tmux", "-L", socket));
        cmd.addAll(List.of(args));
        ProcessBuilder builder = new ProcessBuilder(cmd).redirectErrorStream(true);
        builder.environment().keySet().removeIf(k -> k.startsWith("LODESTAR_"));
        builder.environment().putIfAbsent("TERM", "xterm");
        Process p = builder.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(10, TimeUnit.SECONDS) || p.exitValue() != 0) {
            throw new IllegalStateException("tmux " + String.join(" ", args) + " failed: " + out);
        }
        return out;
    }

    private static String quote(String word) {
        return "'" + word.replace("'", "'\\''") + "'";
    }
}
