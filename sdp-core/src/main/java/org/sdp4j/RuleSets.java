package org.sdp4j;

import java.util.List;

import org.sdp4j.conf.AddressPattern;
import org.sdp4j.conf.Family;
import org.sdp4j.conf.Role;
import org.sdp4j.conf.Rule;
import org.sdp4j.conf.RuleSet;

/** Rule sets the agent makes itself. */
public final class RuleSets {
    private RuleSets() {}

    /** What {@code onerror=tcp} runs with: every client and server on TCP, logged as such. */
    public static RuleSet allTcp(String source) {
        return new RuleSet(source, List.of(
                new Rule(0, "use tcp server * *:*", Family.TCP, Role.SERVER, "*", AddressPattern.ANY, 0, 65535),
                new Rule(0, "use tcp client * *:*", Family.TCP, Role.CLIENT, "*", AddressPattern.ANY, 0, 65535)),
                null);
    }
}
