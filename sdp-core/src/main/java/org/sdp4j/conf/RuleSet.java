package org.sdp4j.conf;

import java.net.InetAddress;
import java.util.List;

/**
 * A parsed libsdp.conf: its {@code use} rules in file order, and its log settings. First match wins, among the rules
 * of the connection's role (libsdp keeps server and client rules in two lists; walking one list in file order skipping
 * the other role is the same thing).
 */
public final class RuleSet {
    private final String source;
    private final List<Rule> rules;
    private final LogSettings log;

    public RuleSet(String source, List<Rule> rules, LogSettings log) {
        this.source = source;
        this.rules = List.copyOf(rules);
        this.log = log;
    }

    /** The file this came from, or a description ("built-in", "<none>"). */
    public String source() { return source; }
    public List<Rule> rules() { return rules; }
    /** Log settings from the file; {@code null} when it has no {@code log} statement. */
    public LogSettings log() { return log; }

    /** First matching rule, or libsdp's default when none matches. */
    public Match match(Role role, ProgramIdentity id, InetAddress address, int port) {
        for (Rule r : rules) {
            if (r.matches(role, id, address, port)) {
                return new Match(r.family(), r);
            }
        }
        return new Match(defaultFamily(role), null);
    }

    /**
     * The family when no rule matches, as libsdp's match.c decides it: {@code sdp} when the set has no {@code use}
     * rule at all, {@code both} otherwise. See {@link Defaults} and docs/libsdp-conf.md.
     */
    public Family defaultFamily(Role role) {
        return Defaults.familyWhenNoRuleMatches(this, role);
    }
}
