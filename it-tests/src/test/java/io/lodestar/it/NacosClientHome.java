package io.lodestar.it;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * One directory for nacos-client 1.4.7's snapshots, logs and naming cache, for the whole test JVM:
 * the client reads these properties once, when its classes load, so every test class using it
 * must see the same values (a per-class directory deleted after one class would be the one the
 * next class's clients still write to). Deleted when the JVM exits.
 */
final class NacosClientHome {
    static final Path DIR;

    static {
        try {
            DIR = Files.createTempDirectory("nacos-client-it-");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        System.setProperty("JM.SNAPSHOT.PATH", DIR.toString());
        System.setProperty("JM.LOG.PATH", DIR.resolve("logs").toString());
        System.setProperty(
                "com.alibaba.nacos.naming.cache.dir", DIR.resolve("naming").toString());
        Runtime.getRuntime().addShutdownHook(new Thread(() -> LodestarCluster.deleteTree(DIR)));
    }

    private NacosClientHome() {}

    /** Sets the client's properties (once per JVM); call before any nacos-client class loads. */
    static void init() {
        // the static initialiser above does the work
    }
}
