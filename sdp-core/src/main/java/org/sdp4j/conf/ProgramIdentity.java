package org.sdp4j.conf;

import java.util.List;

/**
 * Who "the program" is for a rule's PROGRAM field. A JVM's process name is always {@code java}, so sdp4j matches
 * PROGRAM against a list of names: the id set with {@code -Dsdp4j.program=}, the main class's full and simple
 * name, the jar file name, and {@code java}. A rule matches when its glob matches any of them.
 */
public final class ProgramIdentity {
    private final List<String> names;

    public ProgramIdentity(List<String> names) {
        this.names = List.copyOf(names);
    }

    public List<String> names() {
        return names;
    }

    /** fnmatch(3) of {@code glob} against each name; {@code *} always matches. */
    public boolean matches(String glob) {
        if ("*".equals(glob)) {
            return true;
        }
        for (String n : names) {
            if (Glob.matches(glob, n)) {
                return true;
            }
        }
        return false;
    }

    /** An identity with exactly one name (the {@code check --program NAME} case). */
    public static ProgramIdentity of(String name) {
        return new ProgramIdentity(List.of(name));
    }

    /** The identity of this JVM (see the class comment for the sources, in order). */
    public static ProgramIdentity current() {
        return ProgramIdentities.detect();
    }

    @Override
    public String toString() {
        return names.isEmpty() ? "?" : names.get(0);
    }
}
