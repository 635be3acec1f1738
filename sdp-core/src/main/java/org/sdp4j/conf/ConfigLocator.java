package org.sdp4j.conf;

import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.List;
import java.util.function.Function;

/**
 * Finds and parses the libsdp.conf this JVM runs with. Discovery order: the explicit path (agent option
 * {@code conf=}), system property {@code sdp4j.conf}, env {@code LIBSDP_CONFIG_FILE} (libsdp's own variable, read in
 * its port.c {@code __sdp_init}), then {@code /etc/libsdp.conf}.
 * <p>
 * A path someone named that is missing or unreadable is an error; a missing {@code /etc/libsdp.conf} is not — that
 * is libsdp's "no rules" case (see {@link Defaults}).
 */
public final class ConfigLocator {
    public static final String PROPERTY = "sdp4j.conf";
    public static final String ENV = "LIBSDP_CONFIG_FILE";
    public static final Path DEFAULT_FILE = Path.of("/etc/libsdp.conf");

    private ConfigLocator() {}

    /** @param explicitPath the agent's {@code conf=} option, or null */
    public static RuleSet load(String explicitPath) throws ConfigException {
        return load(explicitPath, System::getProperty, System::getenv, DEFAULT_FILE);
    }

    /** The same with the environment, the system properties and the default file passed in, for tests. */
    static RuleSet load(String explicitPath, Function<String, String> properties, Function<String, String> env,
                        Path defaultFile) throws ConfigException {
        if (explicitPath != null) {
            return named(explicitPath, "agent option conf= or check --conf");
        }
        String prop = properties.apply(PROPERTY);
        if (prop != null) {
            return named(prop, "system property " + PROPERTY);
        }
        String fromEnv = env.apply(ENV);
        if (fromEnv != null) {
            return named(fromEnv, "environment variable " + ENV);
        }
        if (!Files.exists(defaultFile, LinkOption.NOFOLLOW_LINKS)) {
            return new RuleSet("no config file (looked for the agent option conf=, system property " + PROPERTY
                    + ", environment variable " + ENV + " and " + defaultFile + ")", List.of(), null);
        }
        if (!Files.exists(defaultFile)) {
            throw new ConfigException(defaultFile.toString(), 0, "is a symbolic link to a file that does not exist");
        }
        return readable(defaultFile, "the default location");
    }

    private static RuleSet named(String value, String origin) throws ConfigException {
        if (value.isBlank()) {
            throw new ConfigException(origin, 0, "is set but empty; it should name a libsdp.conf");
        }
        Path p;
        try {
            p = Path.of(value);
        } catch (RuntimeException e) {
            throw new ConfigException(value, 0, "not a valid path (named by " + origin + ")");
        }
        if (!Files.exists(p)) {
            throw new ConfigException(value, 0, "no such file (named by " + origin + ")");
        }
        return readable(p, origin);
    }

    private static RuleSet readable(Path p, String origin) throws ConfigException {
        if (Files.isDirectory(p)) {
            throw new ConfigException(p.toString(), 0, "is a directory, not a libsdp.conf (named by " + origin + ")");
        }
        if (!Files.isReadable(p)) {
            throw new ConfigException(p.toString(), 0, "cannot read: permission denied (named by " + origin + ")");
        }
        return ConfigParser.parse(p);
    }
}
