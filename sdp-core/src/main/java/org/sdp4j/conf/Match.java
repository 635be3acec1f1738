package org.sdp4j.conf;

/**
 * The result of matching one connection against a {@link RuleSet}: the family to use and the rule that gave it,
 * or {@code rule == null} when no rule matched and the default applied.
 */
public record Match(Family family, Rule rule) {

    public boolean isDefault() {
        return rule == null;
    }

    /** {@code "line 12"} or {@code "default"}, as the decision log prints it. */
    public String origin() {
        return rule == null ? "default" : "line " + rule.line();
    }
}
