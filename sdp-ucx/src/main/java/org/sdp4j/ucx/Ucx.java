package org.sdp4j.ucx;

import org.openucx.jucx.ucp.UcpContext;
import org.openucx.jucx.ucp.UcpParams;

/**
 * Whether UCX can carry connections in this process, in the style of Netty's {@code Epoll}: probed once, never
 * throws, and says why not. The probe loads jucx's JNI glue (which links Debian's {@code libucp.so.0}) and creates
 * the one UCX context every sdp4j UCX connection shares.
 *
 * <p>Properties: {@code -Dsdp4j.ucx.disable=true} turns the transport off; {@code -Dsdp4j.ucx.tls} sets UCX's
 * transport list (default {@code posix,cma,self}: sdp4j's rendezvous only reaches this host, where shared memory is
 * the point, so a connection that works is a shared-memory connection; sysv is left out, its segments are 0660).
 */
public final class Ucx {
    /**
     * Shared memory that only the two processes can map: posix segments (0600, unlinked, reached through
     * /proc/PID/fd, which needs ptrace rights over the peer) and cma; not sysv, whose segments are 0660 and so
     * readable by every member of the creator's group (docs/security-ucx.md).
     */
    static final String DEFAULT_TLS = "posix,cma,self";

    /**
     * UCX settings sdp4j applies unless the environment sets them ({@code UCX_<NAME>}, or {@code UCX_POSIX_}/
     * {@code UCX_SM_} forms of an {@code MM_} name). Every connection end has its own worker, and UCX's defaults
     * size a worker's shared-memory receive side for one busy worker per process: 512 receive buffers of 8 KiB
     * allocated up front (4 MiB, {@code RX_BUFS_GROW}) and a 64-entry FIFO. That made creating and destroying a
     * worker pair cost about 6.5 ms of CPU here, most of a connect+close and of a burst of handshakes; with 16
     * buffers per growth step and a 32-entry FIFO it is about 1.1 ms (measured with jucx on this machine), and the
     * pool still grows to what a busy connection needs. {@code -Dsdp4j.ucx.config=NAME=VALUE,...} replaces the list.
     */
    static final String DEFAULT_CONFIG = "MM_RX_BUFS_GROW=16,MM_FIFO_SIZE=32";

    private Ucx() {}

    private static final class Probe {
        static final UcpContext CONTEXT;
        static final Throwable CAUSE;
        static final String TLS = tls();

        static {
            UcpContext ctx = null;
            Throwable cause = null;
            if (Boolean.getBoolean("sdp4j.ucx.disable")) {
                cause = new UnsupportedOperationException("UCX disabled by -Dsdp4j.ucx.disable=true");
            } else if (org.sdp4j.ucp.Ucp.unavailabilityCause() != null) {
                // sdp4j's own libucp calls (libsdp4j.so) are resolved before jucx loads: they load libucs without
                // UCX's fatal-signal handlers (sdp4j_ucp.c, ucs_quiet_dlopen), which would otherwise be live between
                // jucx's load of libucs and its JNI_OnLoad, and kill this JVM at any safepoint in between
                Throwable t = org.sdp4j.ucp.Ucp.unavailabilityCause();
                String m = String.valueOf(t.getMessage());
                cause = new UnsupportedOperationException(m.contains("dlopen libucp")
                        ? "UCX is not installed: " + m + " " + INSTALL
                        : "sdp4j's libucp calls are unavailable: " + m, t);
            } else {
                try {
                    UcpParams params = new UcpParams().requestStreamFeature().requestWakeupFeature()
                            .setConfig("TLS", TLS);
                    for (String[] kv : config(System.getProperty("sdp4j.ucx.config", DEFAULT_CONFIG), System.getenv())) {
                        params.setConfig(kv[0], kv[1]);
                    }
                    ctx = new UcpContext(params);
                } catch (UnsatisfiedLinkError | NoClassDefFoundError e) {
                    cause = new UnsupportedOperationException(explain(e), e);
                } catch (Throwable e) { // a UcxException from ucp_init (bad UCX_* variable, TLS list ...)
                    cause = new UnsupportedOperationException("UCX could not start: " + e.getMessage()
                            + " (UCX_* environment variables, -Dsdp4j.ucx.tls=" + TLS + " and -Dsdp4j.ucx.config apply)", e);
                }
            }
            CONTEXT = ctx;
            CAUSE = cause;
            // here, not in a virtual thread's first wait: class initialisation there would pin its carrier
            org.sdp4j.transport.SpinPolicy.start();
            org.sdp4j.ops.OpenConnections.preload();
            UcxParker.preload();
        }
    }

    /** How to install what the transport needs, in every "UCX is not installed" message. */
    private static final String INSTALL = "(Debian: apt-get install libucx0)";

    static String explain(Throwable e) {
        String m = String.valueOf(e.getMessage());
        if (m.contains("libucp") || m.contains("libucs") || m.contains("libuct")) {
            return "UCX is not installed: jucx's libjucx.so needs libucp.so.0 " + INSTALL + ": " + m;
        }
        if (e instanceof NoClassDefFoundError) {
            return "jucx (org.openucx:jucx) is not on the class path: " + m;
        }
        return "jucx's native library did not load: " + m;
    }

    /**
     * The {@code NAME=VALUE} pairs of {@code list} that the environment does not set. An {@code MM_} name (UCX's
     * memory-mapped transports' common settings) is also set by {@code UCX_POSIX_}, {@code UCX_SYSV_} and
     * {@code UCX_SM_} variables of the same suffix, so any of them leaves it to the environment.
     */
    static java.util.List<String[]> config(String list, java.util.Map<String, String> env) {
        java.util.List<String[]> out = new java.util.ArrayList<>();
        for (String item : list.split(",")) {
            String t = item.trim();
            if (t.isEmpty()) {
                continue;
            }
            int eq = t.indexOf('=');
            if (eq <= 0 || eq == t.length() - 1 || !t.substring(0, eq).matches("[A-Z0-9_]+")) {
                throw new IllegalArgumentException("-Dsdp4j.ucx.config: '" + t + "' is not NAME=VALUE with an "
                        + "upper-case UCX setting name (e.g. MM_FIFO_SIZE=32)");
            }
            String name = t.substring(0, eq);
            boolean fromEnv = env.containsKey("UCX_" + name);
            if (name.startsWith("MM_")) {
                String suffix = name.substring(3);
                fromEnv |= env.containsKey("UCX_POSIX_" + suffix) || env.containsKey("UCX_SYSV_" + suffix)
                        || env.containsKey("UCX_SM_" + suffix);
            }
            if (!fromEnv) {
                out.add(new String[] {name, t.substring(eq + 1)});
            }
        }
        return out;
    }

    static String tls() {
        String t = System.getProperty("sdp4j.ucx.tls");
        return t == null || t.isBlank() ? DEFAULT_TLS : t.trim();
    }

    public static boolean isAvailable() {
        return Probe.CAUSE == null;
    }

    /** Why {@link #isAvailable()} is false; {@code null} when UCX is available. */
    public static Throwable unavailabilityCause() {
        return Probe.CAUSE;
    }

    static UcpContext context() throws java.io.IOException {
        if (Probe.CAUSE != null) {
            throw new java.io.IOException(Probe.CAUSE.getMessage(), Probe.CAUSE);
        }
        return Probe.CONTEXT;
    }

    /** UCX's transport list in use, for logs. */
    static String transports() {
        return Probe.TLS;
    }
}
