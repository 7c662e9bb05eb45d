package io.lodestar.api.server;

import com.sun.jna.Library;
import com.sun.jna.Native;
import com.sun.jna.Platform;

/**
 * The process's file-creation mask, set through libc: Java has no call for it, and RocksDB, JRaft
 * and logback create their files with whatever mode it leaves.
 */
final class ProcessUmask {
    /** Group and others lose every bit: files are born 0600, directories 0700. */
    static final int OWNER_ONLY = 0077;

    private interface LibC extends Library {
        int umask(int mask);
    }

    private ProcessUmask() {}

    /**
     * Sets the mask to {@link #OWNER_ONLY} for the whole process, every thread included, from now
     * on. Returns null once set, else why it could not be (no libc binding on this platform, say);
     * the caller checks what a new file gets either way.
     */
    static String restrictToOwner() {
        // JNA unpacks its native part into a cache under the home directory by default: in the image
        // that is the data dir (or "?/" where the user has no passwd entry). The temp dir it is, as for
        // RocksDB's loader; the copy is deleted once loaded.
        if (System.getProperty("jna.tmpdir") == null) {
            System.setProperty("jna.tmpdir", System.getProperty("java.io.tmpdir"));
        }
        try {
            LibC libc = Native.load(Platform.C_LIBRARY_NAME, LibC.class);
            libc.umask(OWNER_ONLY);
            return null;
        } catch (LinkageError | RuntimeException e) {
            return e.toString();
        }
    }
}
