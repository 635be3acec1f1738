package org.sdp4j.agent;

import java.io.PrintStream;
import java.util.List;

import org.sdp4j.conf.ConfigException;
import org.sdp4j.conf.ConfigLocator;
import org.sdp4j.conf.ProgramIdentity;
import org.sdp4j.conf.RuleSet;
import org.sdp4j.transport.Transport;
import org.sdp4j.transport.Transports;

/** {@code selftest}: what sdp4j sees in this JVM, for a user to read or attach to a bug report. */
final class SelfTest {
    private SelfTest() {}

    static int run(List<String> args, PrintStream out, PrintStream err) {
        String conf = null;
        if (args.size() == 2 && args.get(0).equals("--conf")) {
            conf = args.get(1);
        } else if (!args.isEmpty()) {
            err.println("sdp4j selftest: expected no arguments or --conf FILE");
            return 2;
        }
        int problems = 0;
        out.println("sdp4j " + version());
        out.println("java:     " + System.getProperty("java.vm.name") + " " + System.getProperty("java.runtime.version")
                + " (" + System.getProperty("java.home") + ")");
        out.println("os:       " + System.getProperty("os.name") + " " + System.getProperty("os.version") + " "
                + System.getProperty("os.arch"));
        out.println("program:  " + ProgramIdentity.current().names());
        try {
            RuleSet rules = ConfigLocator.load(conf);
            out.println("config:   " + rules.source() + " (" + rules.rules().size() + " use rules)");
            rules.rules().forEach(r -> out.println("          line " + r.line() + ": " + r.text()));
        } catch (ConfigException e) {
            out.println("config:   ERROR " + e.getMessage());
            problems++;
        }
        for (Transport t : Transports.all()) {
            String d = t.isAvailable() ? t.describe() : null;
            out.printf("transport %-8s %s%n", t.name(), t.isAvailable() ? "available" + (d == null ? "" : ": " + d)
                    : "unavailable: " + causeChain(t.unavailabilityCause()));
        }
        out.println(problems == 0 ? "selftest: ok" : "selftest: " + problems + " problem(s)");
        return problems == 0 ? 0 : 1;
    }

    static String causeChain(Throwable t) {
        StringBuilder b = new StringBuilder();
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (b.length() > 0) {
                b.append(" <- ");
            }
            b.append(c.getMessage() != null ? c.getMessage() : c.getClass().getName());
        }
        return b.toString();
    }

    static String version() {
        String v = SelfTest.class.getPackage().getImplementationVersion();
        return v != null ? v : "(development build)";
    }
}
