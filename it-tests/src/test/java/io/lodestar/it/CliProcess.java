package io.lodestar.it;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * One run of the jar's command line as a real process ({@code java -jar lodestar.jar ARGS}), with
 * its exit code, its stdout as bytes (to compare a config's content byte for byte) and its stderr.
 * The environment is the test's without any {@code LODESTAR_*} variable, plus {@code env}.
 */
final class CliProcess {
    record Run(int exit, byte[] stdout, String stderr) {
        String out() {
            return new String(stdout, StandardCharsets.UTF_8);
        }

        @Override
        public String toString() {
            return "exit " + exit + "\nstdout:\n" + out() + "\nstderr:\n" + stderr;
        }
    }

    private CliProcess() {}

    /** The java command line that runs the jar, for a process of the test's own or a terminal's. */
    static List<String> command(String... args) {
        List<String> cmd = new ArrayList<>(List.of(
                ServerProcess.javaBin(),
                "-Xmx96m",
                "-XX:TieredStopAtLevel=1",
                "-XX:+UseSerialGC",
                "-jar",
                ServerProcess.JAR.toAbsolutePath().normalize().toString()));
        cmd.addAll(List.of(args));
        return cmd;
    }

    static Run run(Map<String, String> env, String... args) throws Exception {
        Path err = Files.createTempFile("cli", ".err");
        try {
            ProcessBuilder builder = new ProcessBuilder(command(args))
                    .redirectError(err.toFile())
                    .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")));
            builder.environment().keySet().removeIf(k -> k.startsWith("LODESTAR_"));
            builder.environment().putAll(env);
            Process p = builder.start();
            byte[] out = p.getInputStream().readAllBytes();
            if (!p.waitFor(60, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new AssertionError("did not exit: " + builder.command());
            }
            return new Run(p.exitValue(), out, Files.readString(err));
        } catch (IOException e) {
            throw new AssertionError(e);
        } finally {
            Files.deleteIfExists(err);
        }
    }
}
