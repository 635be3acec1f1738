package org.sdp4j.conf;

import java.util.List;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Who "the program" is for a rule's PROGRAM field. libsdp matches PROGRAM against
 * {@code program_invocation_short_name}, which for every JVM is {@code java}; so sdp4j matches it against a list of
 * names: the id set with {@code -Dsdp4j.program=}, the main class's full and simple name, the jar file name with and
 * without {@code .jar}, and {@code java}. A rule matches when its fnmatch(3) glob matches any of them.
 */
public final class ProgramIdentity {
    /** Rules are few and names never change, so each glob's answer is remembered; the cap keeps it bounded. */
    private static final int CACHE_LIMIT = 256;

    private final List<String> names;
    private final ConcurrentHashMap<String, Boolean> answers = new ConcurrentHashMap<>();

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
        Boolean known = answers.get(glob);
        if (known != null) {
            return known;
        }
        Glob g = Glob.compile(glob);
        boolean any = false;
        for (String n : names) {
            if (g.matches(n)) {
                any = true;
                break;
            }
        }
        if (answers.size() < CACHE_LIMIT) {
            answers.put(glob, any);
        }
        return any;
    }

    /** An identity with exactly one name (the {@code check --program NAME} case). */
    public static ProgramIdentity of(String name) {
        return new ProgramIdentity(List.of(name));
    }

    /**
     * The identity of this JVM (see the class comment for the sources, in order). Detection reads a jar manifest, so
     * it is done once, and again only if {@code sdp4j.program} changes (the agent sets it from its options).
     */
    public static ProgramIdentity current() {
        String id = System.getProperty(ProgramIdentities.PROPERTY);
        Detected d = detected;
        if (d == null || !java.util.Objects.equals(d.property, id)) {
            d = new Detected(id, ProgramIdentities.detect());
            detected = d;
        }
        return d.identity;
    }

    private record Detected(String property, ProgramIdentity identity) {}

    private static volatile Detected detected;

    @Override
    public String toString() {
        return names.isEmpty() ? "?" : names.get(0);
    }
}
