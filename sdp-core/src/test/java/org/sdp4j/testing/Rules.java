package org.sdp4j.testing;

import java.util.ArrayList;
import java.util.List;

import org.sdp4j.conf.AddressPattern;
import org.sdp4j.conf.Family;
import org.sdp4j.conf.Role;
import org.sdp4j.conf.Rule;
import org.sdp4j.conf.RuleSet;

/** Rule sets built in code, so these tests do not depend on the parser. */
public final class Rules {
    private Rules() {}

    /** {@code use FAMILY client * *:*} and {@code use FAMILY server * *:*}. */
    public static RuleSet all(Family client, Family server) {
        List<Rule> r = new ArrayList<>();
        r.add(new Rule(1, "use " + server.keyword() + " server * *:*", server, Role.SERVER, "*", AddressPattern.ANY, 0, 65535));
        r.add(new Rule(2, "use " + client.keyword() + " client * *:*", client, Role.CLIENT, "*", AddressPattern.ANY, 0, 65535));
        return new RuleSet("test", r, null);
    }

    public static RuleSet all(Family f) {
        return all(f, f);
    }
}
