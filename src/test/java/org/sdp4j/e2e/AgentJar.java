package org.sdp4j.e2e;

import java.nio.file.Files;
import java.nio.file.Path;

/** Where the product under test is: {@code -Dsdp4j.agent.jar} (set by the pom), else the reactor's build output. */
public final class AgentJar {
    private AgentJar() {}

    public static Path path() {
        String p = System.getProperty("sdp4j.agent.jar");
        Path jar = p != null && !p.isBlank() ? Path.of(p) : Path.of("../../sdp-jdbc/target/sdp4j-agent.jar");
        jar = jar.toAbsolutePath().normalize();
        if (!Files.isRegularFile(jar)) {
            throw new AssertionError("the agent jar " + jar + " does not exist: build it first"
                    + " (cd <repo> && mvn -B -ntp -DskipTests package), or pass -Dsdp4j.agent.jar=PATH");
        }
        return jar;
    }
}
