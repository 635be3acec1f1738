package org.sdp4j.agent;

import java.io.PrintStream;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.List;

import org.sdp4j.conf.ConfigException;
import org.sdp4j.conf.ConfigLocator;
import org.sdp4j.conf.Match;
import org.sdp4j.conf.ProgramIdentity;
import org.sdp4j.conf.Role;
import org.sdp4j.conf.RuleSet;

/** {@code check [--conf FILE] [--program NAME] client|server HOST:PORT}: a decision without starting anything. */
final class CheckCommand {
    private CheckCommand() {}

    static int run(List<String> args, PrintStream out, PrintStream err) {
        String conf = null, program = null, roleWord = null, target = null;
        for (int i = 0; i < args.size(); i++) {
            String a = args.get(i);
            if ((a.equals("--conf") || a.equals("--program")) && i + 1 >= args.size()) {
                err.println("sdp4j check: " + a + " needs a value");
                return 2;
            }
            if (a.equals("--conf")) {
                conf = args.get(++i);
            } else if (a.equals("--program")) {
                program = args.get(++i);
            } else if (roleWord == null) {
                roleWord = a;
            } else if (target == null) {
                target = a;
            } else {
                err.println("sdp4j check: unexpected argument '" + a + "'");
                return 2;
            }
        }
        if (roleWord == null || target == null) {
            err.println("sdp4j check: expected client|server HOST:PORT");
            Main.usage(err);
            return 2;
        }
        Role role;
        switch (roleWord) {
            case "client", "connect" -> role = Role.CLIENT;
            case "server", "listen" -> role = Role.SERVER;
            default -> {
                err.println("sdp4j check: role '" + roleWord + "': expected client or server");
                return 2;
            }
        }
        InetAddress address;
        int port;
        try {
            int colon = target.lastIndexOf(':');
            if (colon <= 0 || colon == target.length() - 1) {
                throw new IllegalArgumentException("expected HOST:PORT");
            }
            String host = target.substring(0, colon);
            if (host.startsWith("[") && host.endsWith("]")) {
                host = host.substring(1, host.length() - 1);
            } else if (host.indexOf(':') >= 0) {
                throw new IllegalArgumentException("an IPv6 address needs brackets: [ADDR]:PORT");
            }
            port = Integer.parseInt(target.substring(colon + 1));
            if (port < 0 || port > 65535) {
                throw new IllegalArgumentException("port " + port + " out of range 0-65535");
            }
            address = InetAddress.getByName(host);
        } catch (NumberFormatException e) {
            err.println("sdp4j check: '" + target + "': port is not a number");
            return 2;
        } catch (IllegalArgumentException e) {
            err.println("sdp4j check: '" + target + "': " + e.getMessage());
            return 2;
        } catch (UnknownHostException e) {
            err.println("sdp4j check: '" + target + "': unknown host");
            return 2;
        }
        RuleSet rules;
        try {
            rules = ConfigLocator.load(conf);
        } catch (ConfigException e) {
            err.println("sdp4j check: " + e.getMessage());
            return 2;
        }
        ProgramIdentity id = program != null ? ProgramIdentity.of(program) : ProgramIdentity.current();
        Match m = rules.match(role, id, address, port);
        out.println("config:  " + rules.source() + " (" + rules.rules().size() + " use rules)");
        out.println("program: " + id.names());
        out.println(role.keyword() + " " + address.getHostAddress() + ":" + port);
        if (m.isDefault()) {
            out.println("rule:    none matched (default)");
        } else {
            out.println("rule:    line " + m.rule().line() + ": " + m.rule().text());
        }
        out.println("family:  " + m.family().keyword());
        return 0;
    }
}
