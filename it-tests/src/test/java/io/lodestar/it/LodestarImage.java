package io.lodestar.it;

import com.github.dockerjava.api.DockerClient;
import com.github.dockerjava.api.command.BuildImageResultCallback;
import com.github.dockerjava.api.exception.NotFoundException;
import com.github.dockerjava.api.model.Image;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.spi.ToolProvider;
import java.util.zip.ZipFile;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveOutputStream;

/**
 * The Lodestar server image for container tests, built from the repository's {@code Dockerfile}
 * (whose base is the build argument {@code BASE_IMAGE}) and the packaged jar. Nothing is pulled:
 *
 * <ul>
 *   <li>With {@code -Dlodestar.it.baseImage=IMAGE} (e.g. {@code eclipse-temurin:17-jre} where a
 *   registry is reachable and the image is present) that image is the base.
 *   <li>Otherwise the base is made on this machine: a {@code jlink} runtime of the running JDK with
 *   the modules the server needs and the JDK's class-data-sharing archive (the Dockerfile extends
 *   it with the server's classes), plus the shared libraries that runtime and RocksDB's JNI
 *   library link against (as {@code ldd} lists them), {@code /bin/sh}, {@code mkdir},
 *   {@code chown} and {@code chmod} (the Dockerfile's {@code RUN}s need them), packed as a root filesystem and
 *   made an image as {@code docker import} would ({@code FROM scratch}, {@code ADD rootfs.tar /},
 *   {@code PATH} and {@code JAVA_HOME} as in the Temurin images). Linux hosts with glibc only.
 * </ul>
 *
 * Both images are tagged by a hash of what went into them and reused while it is unchanged;
 * older {@code lodestar-it} images are removed when a new one is built. {@code it-tests/CONTAINERS.md}
 * gives the same steps as shell commands.
 */
final class LodestarImage {
    static final String REPOSITORY = "lodestar-it";
    static final String BASE_REPOSITORY = "lodestar-it-base";
    /** What the server needs of the JDK (jdeps over the shaded jar, less what only optional code paths use). */
    static final List<String> MODULES = List.of(
            "java.base",
            "java.logging",
            "java.management",
            "java.naming",
            "java.net.http",
            "java.sql",
            "java.xml",
            "jdk.crypto.ec",
            "jdk.management",
            "jdk.unsupported");
    /** Bump when the base's recipe changes, so an old base is not reused. */
    private static final String BASE_RECIPE = "5";

    private static final String JDK_DIR = "opt/java/openjdk";

    private LodestarImage() {}

    static Path repoRoot() {
        return Path.of(System.getProperty("lodestar.repo", ".."))
                .toAbsolutePath()
                .normalize();
    }

    /** The server image's tag, building it (and the base) first if needed. */
    static String ensure(DockerClient docker) throws Exception {
        Path root = repoRoot();
        Path dockerfile = root.resolve("Dockerfile");
        Path entrypoint = root.resolve("console-api/docker/entrypoint.sh");
        Path settings = root.resolve("conf/lodestar.properties");
        Path jar = ServerProcess.JAR.toAbsolutePath();
        if (!Files.exists(jar)) {
            throw new IllegalStateException(jar + " is missing: run 'mvn package' first");
        }
        String configuredBase = System.getProperty("lodestar.it.baseImage", "");
        String base = configuredBase.isBlank() ? ensureBase(docker) : configuredBase;
        MessageDigest d = MessageDigest.getInstance("SHA-256");
        d.update(base.getBytes(StandardCharsets.UTF_8));
        for (Path p : List.of(dockerfile, entrypoint, settings, jar)) {
            try (InputStream in = Files.newInputStream(p)) {
                byte[] buf = new byte[1 << 16];
                for (int n; (n = in.read(buf)) > 0; ) {
                    d.update(buf, 0, n);
                }
            }
        }
        String tag = REPOSITORY + ":" + HexFormat.of().formatHex(d.digest()).substring(0, 12);
        if (exists(docker, tag)) {
            return tag;
        }
        long t0 = System.nanoTime();
        Path context = Files.createTempFile("lodestar-image-context-", ".tar");
        try {
            try (TarArchiveOutputStream tar = tar(Files.newOutputStream(context))) {
                addFile(tar, dockerfile, "Dockerfile", 0644);
                addFile(tar, entrypoint, "console-api/docker/entrypoint.sh", 0755);
                addFile(tar, settings, "conf/lodestar.properties", 0644);
                addFile(tar, jar, "console-api/target/lodestar.jar", 0644);
            }
            try (InputStream in = Files.newInputStream(context)) {
                docker.buildImageCmd(in)
                        .withTags(Set.of(tag))
                        .withBuildArg("BASE_IMAGE", base)
                        .withPull(false)
                        .withRemove(true)
                        .withForcerm(true)
                        .exec(new BuildImageResultCallback())
                        .awaitImageId(10, TimeUnit.MINUTES);
            }
        } finally {
            Files.deleteIfExists(context);
        }
        System.out.printf(
                "built %s from %s in %d ms%n", tag, base, TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0));
        removeOthers(docker, REPOSITORY, tag);
        if (configuredBase.isBlank()) {
            removeOthers(docker, BASE_REPOSITORY, base); // once no image of ours is built on them
        }
        return tag;
    }

    /** The local base image's tag, making its root filesystem and turning it into an image first if needed. */
    static String ensureBase(DockerClient docker) throws Exception {
        String recipe = BASE_RECIPE + "|" + System.getProperty("java.home") + "|"
                + System.getProperty("java.vm.version") + "|" + MODULES;
        String version = HexFormat.of()
                .formatHex(MessageDigest.getInstance("SHA-256").digest(recipe.getBytes(StandardCharsets.UTF_8)))
                .substring(0, 12);
        String tag = BASE_REPOSITORY + ":" + version;
        if (exists(docker, tag)) {
            return tag;
        }
        long t0 = System.nanoTime();
        Path work = Files.createTempDirectory("lodestar-base-");
        try {
            Path rootfs = work.resolve("rootfs.tar");
            writeRootfs(work, rootfs);
            // What `docker import` does, as a build: docker-java's import (createImageCmd) sends
            // the stream as a JSON body "{}" (docker-java 3.4.2 as Testcontainers 1.21.4 ships it),
            // so the daemon sees an empty archive; ADD of a local tar unpacks it as import would.
            Path context = work.resolve("context.tar");
            try (TarArchiveOutputStream tar = tar(Files.newOutputStream(context))) {
                addText(
                        tar,
                        "Dockerfile",
                        "FROM scratch\nADD rootfs.tar /\n" + "ENV PATH=/" + JDK_DIR + "/bin:/bin JAVA_HOME=/" + JDK_DIR
                                + "\n");
                addFile(tar, rootfs, "rootfs.tar", 0644);
            }
            try (InputStream in = Files.newInputStream(context)) {
                docker.buildImageCmd(in)
                        .withTags(Set.of(tag))
                        .withPull(false)
                        .withRemove(true)
                        .withForcerm(true)
                        .exec(new BuildImageResultCallback())
                        .awaitImageId(10, TimeUnit.MINUTES);
            }
            System.out.printf(
                    "made %s (%d MB root filesystem: jlink runtime of %s and the libraries it links) in %d ms%n",
                    tag,
                    Files.size(rootfs) >> 20,
                    System.getProperty("java.home"),
                    TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0));
        } finally {
            LodestarCluster.deleteTree(work);
        }
        return tag;
    }

    /** Writes the base's root filesystem as a tar: the jlink runtime, its libraries, a shell and two tools. */
    static void writeRootfs(Path work, Path rootfsTar) throws Exception {
        Path runtime = work.resolve("jdk");
        ToolProvider jlink = ToolProvider.findFirst("jlink")
                .orElseThrow(() -> new IllegalStateException("no jlink in " + System.getProperty("java.home")
                        + ": run the tests on a JDK, or pass -Dlodestar.it.baseImage=<a Java 17 image>"));
        int rc = jlink.run(
                System.out,
                System.err,
                "--add-modules",
                String.join(",", MODULES),
                "--strip-debug",
                "--no-man-pages",
                "--no-header-files",
                "--compress=2",
                // the JDK's own class archive, which the image's archive of the server's classes extends
                "--generate-cds-archive",
                "--output",
                runtime.toString());
        if (rc != 0) {
            throw new IllegalStateException("jlink failed with " + rc);
        }
        List<Path> tools = new ArrayList<>();
        for (String tool : List.of("/bin/sh", "/bin/mkdir", "/bin/chown", "/bin/chmod")) {
            tools.add(Path.of(tool).toRealPath());
        }
        // ELF files whose libraries the image needs: the runtime's, the tools, and the native
        // libraries the server unpacks from its jar at start (RocksDB's links libstdc++)
        List<Path> elves = new ArrayList<>(tools);
        try (var walk = Files.walk(runtime)) {
            walk.filter(p -> p.toString().endsWith(".so") || p.endsWith(Path.of("bin", "java")))
                    .forEach(elves::add);
        }
        try (ZipFile jar = new ZipFile(ServerProcess.JAR.toFile())) {
            for (String entry :
                    List.of("librocksdbjni-linux64.so", "META-INF/native/libnetty_transport_native_epoll_x86_64.so")) {
                var e = jar.getEntry(entry);
                if (e != null) {
                    Path out = work.resolve(Path.of(entry).getFileName());
                    try (InputStream in = jar.getInputStream(e)) {
                        Files.copy(in, out);
                    }
                    elves.add(out);
                }
            }
        }
        Set<String> libraries = new TreeSet<>();
        for (String lib : sharedLibraries(elves)) {
            if (!Path.of(lib).normalize().startsWith(work)) { // the runtime's own, found through its RPATH
                libraries.add(lib);
            }
        }

        try (TarArchiveOutputStream tar = tar(Files.newOutputStream(rootfsTar))) {
            Set<String> dirs = new TreeSet<>();
            addDir(tar, dirs, "tmp", 01777);
            addDir(tar, dirs, "etc", 0755);
            addDir(tar, dirs, "bin", 0755);
            addFile(tar, tools.get(0), "bin/sh", 0755);
            addFile(tar, tools.get(1), "bin/mkdir", 0755);
            addFile(tar, tools.get(2), "bin/chown", 0755);
            addFile(tar, tools.get(3), "bin/chmod", 0755);
            for (String lib : libraries) {
                String name = lib.substring(1);
                addParents(tar, dirs, name);
                addFile(tar, Path.of(lib).toRealPath(), name, 0755);
            }
            addParents(tar, dirs, JDK_DIR + "/x");
            try (var walk = Files.walk(runtime)) {
                for (Path p : walk.sorted().toList()) {
                    String name = JDK_DIR + (p.equals(runtime) ? "" : "/" + runtime.relativize(p));
                    if (Files.isDirectory(p)) {
                        addDir(tar, dirs, name, 0755);
                    } else {
                        addFile(tar, p, name, mode(p));
                    }
                }
            }
            addText(
                    tar,
                    "etc/passwd",
                    "root:x:0:0:root:/root:/bin/sh\nlodestar:x:10001:10001:lodestar:/var/lib/lodestar:/bin/sh\n");
            addText(tar, "etc/group", "root:x:0:\nlodestar:x:10001:\n");
        }
    }

    private static final Pattern LDD_LINE = Pattern.compile("(?:=>\\s*)?(/\\S+)\\s+\\(0x");

    /** Every shared library (and the loader) that {@code ldd} resolves for the files. */
    static Set<String> sharedLibraries(List<Path> elves) throws IOException, InterruptedException {
        Set<String> libs = new TreeSet<>();
        for (Path elf : elves) {
            Process ldd = new ProcessBuilder("ldd", elf.toString())
                    .redirectErrorStream(true)
                    .start();
            String out = new String(ldd.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!ldd.waitFor(30, TimeUnit.SECONDS)) {
                ldd.destroyForcibly();
                throw new IllegalStateException("ldd " + elf + " hung");
            }
            for (String line : out.split("\n")) {
                Matcher m = LDD_LINE.matcher(line.trim());
                // "not found" lines name the runtime's own libraries (libjvm.so ...), found at run time
                if (m.find() && !line.contains("not found")) {
                    libs.add(m.group(1));
                }
            }
        }
        if (libs.stream().noneMatch(l -> l.contains("libc.so"))) {
            throw new IllegalStateException(
                    "ldd found no libc: is this a glibc Linux host? Pass -Dlodestar.it.baseImage instead");
        }
        return libs;
    }

    private static TarArchiveOutputStream tar(OutputStream out) {
        TarArchiveOutputStream tar = new TarArchiveOutputStream(new BufferedOutputStream(out, 1 << 16));
        tar.setLongFileMode(TarArchiveOutputStream.LONGFILE_POSIX);
        tar.setBigNumberMode(TarArchiveOutputStream.BIGNUMBER_POSIX);
        return tar;
    }

    private static void addParents(TarArchiveOutputStream tar, Set<String> dirs, String name) throws IOException {
        int slash = name.lastIndexOf('/');
        if (slash > 0) {
            String parent = name.substring(0, slash);
            addParents(tar, dirs, parent);
            addDir(tar, dirs, parent, 0755);
        }
    }

    private static void addDir(TarArchiveOutputStream tar, Set<String> dirs, String name, int mode) throws IOException {
        if (dirs.add(name)) {
            TarArchiveEntry e = new TarArchiveEntry(name + "/");
            e.setMode(040000 | mode);
            tar.putArchiveEntry(e);
            tar.closeArchiveEntry();
        }
    }

    private static void addFile(TarArchiveOutputStream tar, Path file, String name, int mode) throws IOException {
        TarArchiveEntry e = new TarArchiveEntry(name);
        e.setSize(Files.size(file));
        e.setMode(0100000 | mode);
        tar.putArchiveEntry(e);
        Files.copy(file, tar);
        tar.closeArchiveEntry();
    }

    private static void addText(TarArchiveOutputStream tar, String name, String text) throws IOException {
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        TarArchiveEntry e = new TarArchiveEntry(name);
        e.setSize(bytes.length);
        e.setMode(0100644);
        tar.putArchiveEntry(e);
        tar.write(bytes);
        tar.closeArchiveEntry();
    }

    private static int mode(Path p) throws IOException {
        int mode = 0;
        for (PosixFilePermission perm : Files.getPosixFilePermissions(p)) {
            mode |= 1 << (8 - perm.ordinal());
        }
        return mode;
    }

    static boolean exists(DockerClient docker, String tag) {
        try {
            docker.inspectImageCmd(tag).exec();
            return true;
        } catch (NotFoundException e) {
            return false;
        }
    }

    /** Removes the repository's other tags (earlier builds), best effort. */
    private static void removeOthers(DockerClient docker, String repository, String keep) {
        try {
            for (Image image :
                    docker.listImagesCmd().withImageNameFilter(repository).exec()) {
                String[] tags = image.getRepoTags();
                if (tags == null) {
                    continue;
                }
                for (String t : tags) {
                    if (t.startsWith(repository + ":") && !t.equals(keep)) {
                        docker.removeImageCmd(t).withForce(false).exec();
                    }
                }
            }
        } catch (RuntimeException e) {
            System.out.println("could not remove old " + repository + " images: " + e);
        }
    }
}
