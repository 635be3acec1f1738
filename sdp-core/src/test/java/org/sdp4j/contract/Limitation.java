package org.sdp4j.contract;

/**
 * The keys of known, documented deviations from the JDK reference. A fixture declares the ones its transport has
 * ({@link Transport#limitations()}); a test that meets one skips with an assumption naming the key; every key has a
 * row in docs/transport-contract.md ({@link ContractDocTest} and {@link ContractBase} check that mechanically).
 * Bugs being fixed are not limitations and have no key here.
 */
public enum Limitation {
    /** The listener accepts connections on its own threads: the kernel backlog never fills, a connect never waits. */
    BACKLOG_UNBOUNDED,
    /** No abortive close: SO_LINGER 0 then close reaches the peer as an orderly end of stream, not a reset. */
    NO_RESET,
    /** shutdownInput() does not wake a java.net reader already blocked in read(); later reads see end of stream. */
    SHUTDOWN_INPUT_NO_WAKE,
    /** TCP_NODELAY reads true before any set: the transport never delays small writes. */
    TCP_NODELAY_DEFAULT_ON;

    /** The key as written in the doc table: lower case, dashes. */
    public String key() {
        return name().toLowerCase(java.util.Locale.ROOT).replace('_', '-');
    }
}
