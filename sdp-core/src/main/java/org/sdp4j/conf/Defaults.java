package org.sdp4j.conf;

/** libsdp's choice when no rule matches. TODO(conf): verify against libsdp's match.c and document. */
final class Defaults {
    private Defaults() {}

    static Family familyWhenNoRuleMatches(RuleSet set, Role role) {
        return Family.BOTH;
    }
}
