package org.sdp4j.rsocket;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Locale;

import org.sdp4j.transport.Props;

/**
 * Loads {@code libsdp4j.so} once per JVM and then librdmacm through it, and says why when either fails.
 *
 * <ul>
 *   <li>{@code -Dsdp4j.native.disable=true}: do not load anything (rsockets unavailable, with that reason).</li>
 *   <li>{@code -Dsdp4j.native.path=/path/libsdp4j.so}: load this file instead of the one in the jar.</li>
 *   <li>otherwise {@code META-INF/native/linux-x86_64/libsdp4j.so} is copied from the class path to a private
 *       (0700 directory, 0600 file) temporary file under {@code -Dsdp4j.native.tmpdir} (default
 *       {@code java.io.tmpdir}), loaded, and deleted at once (the mapping stays).</li>
 *   <li>{@code -Dsdp4j.rdmacm.lib=NAME}: the librdmacm to dlopen (default {@code librdmacm.so.1}).</li>
 * </ul>
 */
final class NativeLibrary {
    private NativeLibrary() {}

    static final String DISABLE_PROPERTY = "sdp4j.native.disable";
    static final String PATH_PROPERTY = "sdp4j.native.path";
    static final String TMPDIR_PROPERTY = "sdp4j.native.tmpdir";
    static final String RDMACM_PROPERTY = "sdp4j.rdmacm.lib";
    static final String RDMACM_DEFAULT = "librdmacm.so.1";
    static final String RESOURCE_DIR = "META-INF/native/linux-x86_64/";
    static final String LIBRARY = "libsdp4j.so";

    private static final Object LOCK = new Object();
    private static volatile boolean done;
    private static Throwable loadFailure;
    private static Throwable rdmacmFailure;

    /** Null when libsdp4j.so is loaded (librdmacm may still be missing: see {@link #rdmacmFailure()}). */
    static Throwable loadFailure() {
        ensureLoaded();
        return loadFailure;
    }

    /** Null when both libsdp4j.so and librdmacm are loaded. */
    static Throwable rdmacmFailure() {
        ensureLoaded();
        return loadFailure != null ? loadFailure : rdmacmFailure;
    }

    private static void ensureLoaded() {
        if (done) {
            return;
        }
        synchronized (LOCK) {
            if (done) {
                return;
            }
            try {
                loadFailure = load();
                if (loadFailure == null) {
                    String name = System.getProperty(RDMACM_PROPERTY, RDMACM_DEFAULT);
                    String why = Native.init(name);
                    if (why != null) {
                        rdmacmFailure = new UnsatisfiedLinkError(why);
                    } else {
                        // room in librdmacm's service threads, made before the first connection (sdp4j_svc.c)
                        Native.serviceSlots(
                                (int) Props.longProperty("sdp4j.rsocket.maxConnections", 1024, 1, 1 << 20),
                                (int) Props.longProperty("sdp4j.rsocket.maxListeners", 64, 1, 1 << 20));
                        RsocketParker.preload();
                    }
                }
            } catch (Throwable t) { // LinkageError, SecurityException, ...: never escapes isAvailable()
                loadFailure = loadFailure == null ? t : loadFailure;
            } finally {
                done = true;
            }
        }
    }

    private static Throwable load() {
        if (Boolean.getBoolean(DISABLE_PROPERTY)) {
            return new UnsupportedOperationException(
                    "sdp4j native library disabled (-D" + DISABLE_PROPERTY + "=true)");
        }
        String path = System.getProperty(PATH_PROPERTY);
        if (path != null && !path.isEmpty()) {
            Path p = Paths.get(path).toAbsolutePath();
            if (!Files.isRegularFile(p)) {
                return new UnsatisfiedLinkError("-D" + PATH_PROPERTY + "=" + path + ": no such file");
            }
            try {
                System.load(p.toString());
                return null;
            } catch (Throwable t) {
                return chain(new UnsatisfiedLinkError("loading " + p + " (-D" + PATH_PROPERTY + "): " + t.getMessage()), t);
            }
        }
        String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
        String arch = System.getProperty("os.arch", "").toLowerCase(Locale.ROOT);
        if (!os.startsWith("linux") || !(arch.equals("amd64") || arch.equals("x86_64"))) {
            return new UnsatisfiedLinkError("rsockets need Linux on x86_64; this is " + os + "/" + arch);
        }
        String resource = RESOURCE_DIR + LIBRARY;
        ClassLoader cl = NativeLibrary.class.getClassLoader();
        try (InputStream in = cl == null ? ClassLoader.getSystemResourceAsStream(resource) : cl.getResourceAsStream(resource)) {
            if (in == null) {
                return new UnsatisfiedLinkError(resource + " is not on the class path (a build without native/?)");
            }
            Path dir = Paths.get(System.getProperty(TMPDIR_PROPERTY, System.getProperty("java.io.tmpdir")));
            Path tmpDir = Files.createTempDirectory(dir, "sdp4j-",
                    PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
            Path file = tmpDir.resolve(LIBRARY);
            try {
                Files.copy(in, file, StandardCopyOption.REPLACE_EXISTING);
                System.load(file.toString());
            } finally {
                Files.deleteIfExists(file);
                Files.deleteIfExists(tmpDir);
            }
            return null;
        } catch (IOException e) {
            return chain(new UnsatisfiedLinkError("extracting " + resource + ": " + e), e);
        } catch (Throwable t) {
            return chain(new UnsatisfiedLinkError("loading " + resource + " (extracted to a temporary file; if "
                    + "the temporary directory is mounted noexec, set -D" + TMPDIR_PROPERTY + "=DIR): "
                    + t.getMessage()), t);
        }
    }

    private static Throwable chain(Throwable outer, Throwable cause) {
        outer.initCause(cause);
        return outer;
    }
}
