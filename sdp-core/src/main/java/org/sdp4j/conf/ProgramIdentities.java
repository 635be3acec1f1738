package org.sdp4j.conf;

import java.util.ArrayList;
import java.util.List;

/** Detects this JVM's program names. TODO(conf): jar name, main class from sun.java.command, ProcessHandle. */
final class ProgramIdentities {
    private ProgramIdentities() {}

    static ProgramIdentity detect() {
        List<String> names = new ArrayList<>();
        String id = System.getProperty("sdp4j.program");
        if (id != null && !id.isBlank()) {
            names.add(id.trim());
        }
        names.add("java");
        return new ProgramIdentity(names);
    }
}
