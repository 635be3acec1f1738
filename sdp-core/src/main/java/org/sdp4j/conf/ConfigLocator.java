package org.sdp4j.conf;

/**
 * Finds and parses the libsdp.conf this JVM runs with. Discovery order: the explicit path (agent option
 * {@code conf=}), system property {@code sdp4j.conf}, env {@code LIBSDP_CONFIG_FILE}, then {@code /etc/libsdp.conf}.
 * TODO(conf): discovery; this stub reads only an explicit path.
 */
public final class ConfigLocator {
    private ConfigLocator() {}

    /** @param explicitPath the agent's {@code conf=} option, or null */
    public static RuleSet load(String explicitPath) throws ConfigException {
        if (explicitPath == null) {
            return new RuleSet("<none>", java.util.List.of(), null);
        }
        return ConfigParser.parse(java.nio.file.Path.of(explicitPath));
    }
}
