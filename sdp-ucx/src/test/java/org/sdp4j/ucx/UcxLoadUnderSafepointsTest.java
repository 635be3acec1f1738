package org.sdp4j.ucx;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The ucx transport loads UCX in a JVM whose other threads keep reaching safepoints, and the JVM lives. libucs's
 * constructor installs UCX's own SIGSEGV handler, which aborts the process; the JVM's safepoint polls fault on
 * purpose, so a thread polling between that constructor and jucx's JNI_OnLoad (which removes UCX's handlers) killed
 * the JVM: a two-host CI run lost a server that way, and loading jucx beside a thread calling System.gc() crashed
 * 20 JVMs of 20. sdp4j now loads libucs first, with UCX_ERROR_SIGNALS empty (sdp4j_ucp.c, ucs_quiet_dlopen).
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class UcxLoadUnderSafepointsTest {
    static final int JVMS = 3;

    @Test
    void loadingUcxWhileOtherThreadsHitSafepointsDoesNotKillTheJvm() throws Exception {
        for (int i = 0; i < JVMS; i++) {
            Path out = Files.createTempFile("ucx-load", ".out");
            try {
                Process p = new ProcessBuilder(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                        "-XX:+UseSerialGC", "-cp", System.getProperty("surefire.test.class.path",
                                System.getProperty("java.class.path")), Child.class.getName()))
                        .redirectErrorStream(true).redirectOutput(out.toFile()).start();
                int exit;
                try {
                    exit = p.waitFor(); // a hung JVM is the class's @Timeout's to end, not a verdict of this test
                } finally {
                    p.destroyForcibly();
                }
                String text = Files.readString(out);
                assertEquals(0, exit, () -> "JVM " + exit + "\n" + text);
                assertTrue(text.contains("UCX LOADED available=true"), text);
                assertTrue(text.contains("UCX_ERROR_SIGNALS after: null"), "the environment is left as it was: " + text);
            } finally {
                Files.deleteIfExists(out);
            }
        }
    }

    /** Threads in compiled loops and one forcing safepoints (a full GC each), then the transport's probe. */
    public static final class Child {
        static volatile long sink;

        static long mix(long x) {
            return (x * 0x9E3779B97F4A7C15L) ^ (x >>> 29);
        }

        public static void main(String[] args) throws Exception {
            for (int t = 0; t < 2; t++) {
                Thread spin = new Thread(() -> {
                    long x = 1;
                    while (true) {
                        for (int i = 0; i < 1000; i++) {
                            x = mix(x);
                        }
                        sink = x;
                    }
                });
                spin.setDaemon(true);
                spin.start();
            }
            Thread gc = new Thread(() -> {
                while (true) {
                    System.gc();
                }
            });
            gc.setDaemon(true);
            gc.start();
            Thread.sleep(300); // the loops compiled, the polls armed again and again
            boolean ok = Ucx.isAvailable();
            System.out.println("UCX LOADED available=" + ok + (ok ? "" : " " + Ucx.unavailabilityCause()));
            System.out.println("UCX_ERROR_SIGNALS after: " + new ProcessBuilder("printenv", "UCX_ERROR_SIGNALS")
                    .start().inputReader().lines().findFirst().orElse(null));
            System.exit(0);
        }
    }
}
