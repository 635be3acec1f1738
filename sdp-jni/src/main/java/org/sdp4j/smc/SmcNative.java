package org.sdp4j.smc;

/** libsdp4j.so's SMC calls (native/src/sdp4j_smc.c); loaded by {@link Smc} before any is used. */
final class SmcNative {
    private SmcNative() {}

    /** How SMC sockets are made: socket(AF_INET[6], SOCK_STREAM, IPPROTO_SMC) (Linux 6.11+), or AF_SMC. */
    static final int IPPROTO = 1, AF_SMC = 2;

    /** {@link #IPPROTO} or {@link #AF_SMC}; throws a SocketException naming both errors when the kernel has no SMC. */
    static native int probe() throws java.net.SocketException;

    /** Turns fd, an unbound unconnected TCP socket, into an SMC socket of the same family and flags (dup2). */
    static native void convert(int fd, int how) throws java.io.IOException;

    /** Whether fd is an SMC socket. */
    static native boolean isSmc(int fd);

    /** smc_diag of SMC socket fd: [mode, fallback reason, peer diagnosis], or null when it is not listed. */
    static native int[] diag(int fd) throws java.io.IOException;

    /** The kernel's SMC User EIDs, blank-separated ("" when none); throws when they cannot be read. */
    static native String ueids() throws java.net.SocketException;
}
