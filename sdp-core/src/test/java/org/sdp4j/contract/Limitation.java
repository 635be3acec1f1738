package org.sdp4j.contract;

/**
 * The keys of known, documented deviations from the JDK reference. A fixture declares the ones its transport has
 * ({@link Transport#limitations()}); a test that meets one skips with an assumption naming the key; every key has a
 * row in docs/transport-contract.md ({@link ContractDocTest} and {@link ContractBase} check that mechanically).
 * Bugs being fixed are not limitations and have no key here.
 */
public enum Limitation {
    ;

    /** The key as written in the doc table: lower case, dashes. */
    public String key() {
        return name().toLowerCase(java.util.Locale.ROOT).replace('_', '-');
    }
}
