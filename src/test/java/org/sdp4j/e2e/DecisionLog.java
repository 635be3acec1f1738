package org.sdp4j.e2e;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * The agent's per-connection decision lines (log level 7): one line on stderr starting {@code sdp4j: } (in a log
 * file after a timestamp and the program) with
 * {@code client|server ADDR:PORT}, {@code program=}, {@code rule=line N|default}, {@code family=},
 * {@code transport=} and, when the transport differs from the rule, {@code fallback="reason"}.
 */
public final class DecisionLog {
    private static final Pattern ROLE = Pattern.compile("\\b(client|server) (\\[[^\\]]+\\]|[^\\s\\[\\]:]+):(\\d+)");
    private static final Pattern PROGRAM = Pattern.compile(" program=(\\S+)");
    private static final Pattern RULE = Pattern.compile(" rule=(line (\\d+)|default)\\b");
    private static final Pattern FAMILY = Pattern.compile(" family=(\\w+)");
    private static final Pattern TRANSPORT = Pattern.compile(" transport=(\\w+)");
    private static final Pattern FALLBACK = Pattern.compile(" fallback=\"([^\"]*)\"");

    /** One decision. {@code ruleLine} is 0 for {@code rule=default}. */
    public record Decision(String role, String host, int port, String program, String rule, int ruleLine,
                           String family, String transport, String fallback, String raw) {
        public boolean isClient() {
            return role.equals("client");
        }

        public boolean isServer() {
            return role.equals("server");
        }
    }

    private final List<Decision> all;
    private final String stderr;

    private DecisionLog(List<Decision> all, String stderr) {
        this.all = all;
        this.stderr = stderr;
    }

    public static DecisionLog parse(String stderr) {
        List<Decision> out = new ArrayList<>();
        for (String line : stderr.split("\n")) {
            // stderr lines start with "sdp4j: "; a log file has libsdp's "DATE PROGRAM[PID] sdp4j ..." in front
            if (!line.startsWith("sdp4j: ") && !line.contains(" sdp4j ") && !line.contains(" sdp4j: ")) {
                continue;
            }
            Matcher role = ROLE.matcher(line);
            Matcher rule = RULE.matcher(line);
            if (!role.find() || !rule.find()) {
                continue;
            }
            String host = role.group(2);
            if (host.startsWith("[")) {
                host = host.substring(1, host.length() - 1);
            }
            out.add(new Decision(role.group(1), host, Integer.parseInt(role.group(3)), group(PROGRAM, line),
                    rule.group(1), rule.group(2) == null ? 0 : Integer.parseInt(rule.group(2)),
                    group(FAMILY, line), group(TRANSPORT, line), group(FALLBACK, line), line));
        }
        return new DecisionLog(out, stderr);
    }

    private static String group(Pattern p, String line) {
        Matcher m = p.matcher(line);
        return m.find() ? m.group(1) : null;
    }

    public List<Decision> all() {
        return all;
    }

    public List<Decision> where(Predicate<Decision> p) {
        return all.stream().filter(p).collect(Collectors.toList());
    }

    public List<Decision> clientsTo(int port) {
        return where(d -> d.isClient() && d.port() == port);
    }

    public List<Decision> servers() {
        return where(Decision::isServer);
    }

    public List<Decision> clients() {
        return where(Decision::isClient);
    }

    /** For assertion messages. */
    public String dump() {
        return all.isEmpty() ? "(no decision lines; stderr was:\n" + stderr + ")"
                : all.stream().map(Decision::raw).collect(Collectors.joining("\n"));
    }
}
