package org.sdp4j.conf;

/**
 * libsdp's choice when no rule decides, from OFED libsdp's match.c:
 * <ul>
 * <li>{@code __sdp_match_connect()} / {@code __sdp_match_listen()}: "if we do not have any rules we use sdp" — when
 * {@code __sdp_config_empty()} (no {@code use} rule at all, for either role: a missing or unreadable file, a file of
 * comments and {@code log} statements) every connect and listen is {@code sdp}. libsdp.conf calls this "simple SDP"
 * mode.</li>
 * <li>otherwise {@code get_family_by_first_matching_rule()} walks only the rules of the caller's role and returns
 * {@code USE_BOTH} when none matches — also when the file has rules only for the other role.</li>
 * </ul>
 */
final class Defaults {
    private Defaults() {}

    static Family familyWhenNoRuleMatches(RuleSet set, Role role) {
        return set.rules().isEmpty() ? Family.SDP : Family.BOTH;
    }
}
