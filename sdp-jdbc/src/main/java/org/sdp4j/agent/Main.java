package org.sdp4j.agent;

import java.io.PrintStream;
import java.util.Arrays;
import java.util.List;

/**
 * The {@code sdp4j} command line: {@code java -jar sdp4j-agent.jar COMMAND ...}.
 * Exit status 0 on success, 1 when the command ran and found a problem, 2 for bad usage or a bad config.
 */
public final class Main {
    private Main() {}

    public static void main(String[] args) {
        System.exit(run(args, System.out, System.err));
    }

    static int run(String[] args, PrintStream out, PrintStream err) {
        if (args.length == 0 || args[0].equals("help") || args[0].equals("--help") || args[0].equals("-h")) {
            usage(args.length == 0 ? err : out);
            return args.length == 0 ? 2 : 0;
        }
        List<String> rest = Arrays.asList(args).subList(1, args.length);
        switch (args[0]) {
            case "check":
                return CheckCommand.run(rest, out, err);
            case "selftest":
                return SelfTest.run(rest, out, err);
            case "stat":
                return StatCommand.run(rest, out, err);
            default:
                err.println("sdp4j: unknown command '" + args[0] + "'");
                usage(err);
                return 2;
        }
    }

    static void usage(PrintStream s) {
        s.println("usage: java -jar sdp4j-agent.jar check [--conf FILE] [--program NAME] client|server HOST:PORT");
        s.println("       java -jar sdp4j-agent.jar selftest [--conf FILE]");
        s.println("       java -jar sdp4j-agent.jar stat [--json] [PID...]");
        s.println();
        s.println("  check     prints the rule that decides a connection (line and text, or that none matched)");
        s.println("            and the family it gives: sdp, tcp or both. Without --conf the agent's discovery");
        s.println("            order applies: -Dsdp4j.conf, $LIBSDP_CONFIG_FILE, /etc/libsdp.conf.");
        s.println("  selftest  what sdp4j can do in this JVM: config, program identity, transports and why any is");
        s.println("            unavailable, native library; attach its output to a bug report.");
        s.println("  stat      per running JVM with the agent (this user's; all without PIDs): connects, accepts,");
        s.println("            listens, fallbacks by reason and errors per transport, and the rules in force.");
        s.println();
        s.println("As an agent: java -javaagent:sdp4j-agent.jar[=conf=PATH,log=LEVEL[:stderr|:syslog|:file:PATH],"
                + "onerror=fail|tcp,program=NAME,netty=native|nio] ...");
    }
}
