package org.sdp4j.smc;

import java.net.SocketException;

import org.sdp4j.rsocket.Rsocket;

/**
 * Whether this kernel has SMC, and why not: the library is loaded and an SMC socket made once, on first use
 * ({@code use smc} rules only); {@link #isAvailable()} never throws. Unavailable when libsdp4j.so cannot be loaded
 * or the kernel has neither IPPROTO_SMC (Linux 6.11+) nor AF_SMC (the {@code smc} module, Linux 4.11+). An
 * available SMC says nothing yet about RoCE devices or a UEID: without them each connection falls back to TCP by
 * the protocol, and {@link SmcOutcome} says so per connection.
 */
public final class Smc {
    private Smc() {}

    private static final class Holder {
        static final int HOW;
        static final Throwable CAUSE;

        static {
            int how = 0;
            Throwable cause = Rsocket.libraryFailure();
            if (cause == null) {
                try {
                    how = SmcNative.probe();
                } catch (Throwable t) {
                    cause = t;
                }
            }
            HOW = how;
            CAUSE = cause;
        }
    }

    public static boolean isAvailable() {
        return unavailabilityCause() == null;
    }

    /** Why {@link #isAvailable()} is false; {@code null} when available. */
    public static Throwable unavailabilityCause() {
        try {
            return Holder.CAUSE;
        } catch (Throwable t) {
            return t;
        }
    }

    /** The socket kind used: {@code IPPROTO_SMC} or {@code AF_SMC}. */
    public static String method() {
        return isAvailable() ? (Holder.HOW == SmcNative.IPPROTO ? "IPPROTO_SMC" : "AF_SMC") : "none";
    }

    /**
     * What SMC-R needs beyond the kernel's SMC, as found here: the RDMA devices and the User EIDs, and what their
     * absence means (every connection falls back to TCP by the protocol).
     */
    static String describe() {
        StringBuilder b = new StringBuilder(method());
        java.nio.file.Path ib = java.nio.file.Path.of("/sys/class/infiniband");
        java.util.List<String> devs = new java.util.ArrayList<>();
        try (var s = java.nio.file.Files.list(ib)) {
            s.forEach(p -> devs.add(p.getFileName().toString()));
        } catch (java.io.IOException | RuntimeException e) {
            // none
        }
        java.util.Collections.sort(devs);
        b.append("; RDMA devices: ").append(devs.isEmpty() ? "none (SMC-R needs a RoCE device: connections fall back"
                + " to TCP by the protocol)" : String.join(" ", devs));
        try {
            String u = SmcNative.ueids();
            b.append("; User EIDs: ").append(u.isEmpty() ? "none (SMC-Rv2 needs one both hosts share, smc-tools'"
                    + " 'smcr ueid add NAME'; without it, or a pnet table, connections fall back to TCP)" : u);
        } catch (java.io.IOException | RuntimeException e) {
            b.append("; User EIDs: unknown (").append(e.getMessage()).append(')');
        }
        return b.toString();
    }

    /** Makes the JDK's just-created TCP socket {@code fd} an SMC socket. */
    static void convert(int fd) throws java.io.IOException {
        Throwable c = unavailabilityCause();
        if (c != null) {
            throw (SocketException) new SocketException("SMC unavailable: " + c.getMessage()).initCause(c);
        }
        SmcNative.convert(fd, Holder.HOW);
    }
}
