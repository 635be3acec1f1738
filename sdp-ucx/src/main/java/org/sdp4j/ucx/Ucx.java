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
            } else {
                try {
                    ctx = new UcpContext(new UcpParams().requestStreamFeature().requestWakeupFeature()
                            .setConfig("TLS", TLS));
                } catch (UnsatisfiedLinkError | NoClassDefFoundError e) {
                    cause = new UnsupportedOperationException(explain(e), e);
                } catch (Throwable e) { // a UcxException from ucp_init (bad UCX_* variable, TLS list ...)
                    cause = new UnsupportedOperationException("UCX could not start: " + e.getMessage()
                            + " (UCX_* environment variables and -Dsdp4j.ucx.tls=" + TLS + " apply)", e);
                }
            }
            CONTEXT = ctx;
            CAUSE = cause;
        }
    }

    static String explain(Throwable e) {
        String m = String.valueOf(e.getMessage());
        if (m.contains("libucp") || m.contains("libucs") || m.contains("libuct")) {
            return "UCX is not installed: jucx's libjucx.so needs libucp.so.0 (Debian: apt-get install libucx0): " + m;
        }
        if (e instanceof NoClassDefFoundError) {
            return "jucx (org.openucx:jucx) is not on the class path: " + m;
        }
        return "jucx's native library did not load: " + m;
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
