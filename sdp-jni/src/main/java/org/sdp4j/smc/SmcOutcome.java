package org.sdp4j.smc;

import java.io.IOException;
import java.util.Map;

/**
 * How the kernel carried one SMC connection, from smc_diag: SMC-R, SMC-D, or TCP after the protocol's fallback
 * with its reason code in words (the codes are the kernel's {@code SMC_CLC_DECL_*}, as smc-tools' {@code smcss}
 * prints them).
 */
public record SmcOutcome(int mode, int reason, int peerDiagnosis) {
    static final int SMCR = 0, FALLBACK = 1, SMCD = 2;

    private static final Map<Integer, String> REASONS = Map.ofEntries(
            Map.entry(0x01010000, "insufficient memory resources"),
            Map.entry(0x02010000, "timeout waiting for the QP confirm link"),
            Map.entry(0x02020000, "timeout waiting for the QP add link"),
            Map.entry(0x03000000, "configuration error"),
            Map.entry(0x03010000, "the peer did not indicate SMC (no SMC on the other side)"),
            Map.entry(0x03020000, "IPsec in use"),
            Map.entry(0x03030000, "no SMC device found (no RoCE device with a matching pnet id or UEID)"),
            Map.entry(0x03030001, "no SMC-D device found"),
            Map.entry(0x03030002, "no SMC-R device found"),
            Map.entry(0x03030003, "hardware has no ISMv2 support"),
            Map.entry(0x03030004, "the peer sent no CLC v2 extension"),
            Map.entry(0x03030005, "the peer sent no SMC-Dv2 extension"),
            Map.entry(0x03030006, "the peer sent no SEID"),
            Map.entry(0x03030007, "no SMC-Dv2 device found"),
            Map.entry(0x03030008, "the peer sent no UEID (no common User EID: smcr ueid add)"),
            Map.entry(0x03030009, "release version negotiation failed"),
            Map.entry(0x0303000a, "max connections negotiation failed"),
            Map.entry(0x0303000b, "max links negotiation failed"),
            Map.entry(0x03040000, "SMC modes do not match (R or D)"),
            Map.entry(0x03050000, "the peer has an eyecatcher in its RMBE"),
            Map.entry(0x03060000, "TCP fastopen in use (not supported by SMC)"),
            Map.entry(0x03070000, "IP prefix or subnet mismatch"),
            Map.entry(0x03080000, "cannot get the VLAN id of the IP device"),
            Map.entry(0x03090000, "cannot register the VLAN id on the ISM device"),
            Map.entry(0x030a0000, "no active SMC-R link in the link group"),
            Map.entry(0x030b0000, "the server's SMC-R link was not found"),
            Map.entry(0x030c0000, "SMC version mismatch"),
            Map.entry(0x030d0000, "SMC-D DMB limit exceeded"),
            Map.entry(0x030e0000, "no route to the peer for SMC-Rv2"),
            Map.entry(0x04000000, "synchronization error"),
            Map.entry(0x05000000, "the peer declined during the handshake"),
            Map.entry(0x09990000, "internal error"),
            Map.entry(0x99990000, "internal error"));

    /** The outcome of SMC socket {@code fd}, or null when smc_diag does not list it (not SMC, or closed). */
    static SmcOutcome of(int fd) throws IOException {
        int[] d = SmcNative.diag(fd);
        return d == null ? null : new SmcOutcome(d[0], d[1], d[2]);
    }

    public boolean onRdma() {
        return mode == SMCR || mode == SMCD;
    }

    /** The reason code in words, e.g. {@code 0x03030000 no SMC device found (...)}. */
    public static String reasonText(int code) {
        String w = REASONS.get(code);
        if (w == null && (code & 0xffff0000) == 0x99990000) {
            w = "internal error";
        }
        return String.format("0x%08x %s", code, w == null ? "(unknown reason code)" : w);
    }

    @Override
    public String toString() {
        return switch (mode) {
            case SMCR -> "SMC-R";
            case SMCD -> "SMC-D";
            case FALLBACK -> "TCP (SMC fell back: " + reasonText(reason)
                    + (peerDiagnosis != 0 ? "; peer's diagnosis " + reasonText(peerDiagnosis) : "") + ")";
            default -> "SMC mode " + mode;
        };
    }
}
