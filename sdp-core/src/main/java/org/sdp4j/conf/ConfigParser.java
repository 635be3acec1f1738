package org.sdp4j.conf;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/** The libsdp.conf parser. TODO(conf): the whole grammar; this stub accepts only empty files. */
public final class ConfigParser {
    private ConfigParser() {}

    public static RuleSet parse(Path file) throws ConfigException {
        String text;
        try {
            text = Files.readString(file, StandardCharsets.UTF_8);
        } catch (IOException | RuntimeException e) {
            throw new ConfigException(file, 0, "cannot read: " + e);
        }
        return parse(file.toString(), text);
    }

    /** @param source the name errors are reported against */
    public static RuleSet parse(String source, String text) throws ConfigException {
        throw new ConfigException(source, 1, "parser not written yet");
    }
}
