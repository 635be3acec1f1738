package org.sdp4j.agent;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;

import javax.management.MBeanServerConnection;
import javax.management.ObjectName;
import javax.management.remote.JMXConnector;
import javax.management.remote.JMXConnectorFactory;
import javax.management.remote.JMXServiceURL;

import com.sun.tools.attach.VirtualMachine;
import com.sun.tools.attach.VirtualMachineDescriptor;

/**
 * {@code java -jar sdp4j-agent.jar stat [--json] [PID...]}: what rides RDMA in running JVMs, as {@code ss} and
 * {@code smcss} show it for the kernel's sockets. Attaches to each JVM (the Attach API, as {@code jcmd} does: same
 * user only), reads the agent's MBeans ({@code org.sdp4j:*}) through the JVM's local JMX connector and prints, per
 * transport, the connects, accepts, listens, fallbacks by reason, errors, open connections and bytes, then one line
 * per open RDMA connection (as {@code ss} does: addresses, role, rule, age, bytes), and the rules in force. Without a PID,
 * every JVM of this user that runs the agent; a JVM without it is left alone (its management agent is not started:
 * the agent's {@code sdp4j.agent} system property is read first).
 */
final class StatCommand {
    static final String MARKER = "sdp4j.agent";

    private StatCommand() {}

    static int run(List<String> args, PrintStream out, PrintStream err) {
        boolean json = false;
        List<String> pids = new ArrayList<>();
        for (String a : args) {
            if (a.equals("--json")) {
                json = true;
            } else if (a.matches("[0-9]+")) {
                pids.add(a);
            } else {
                err.println("sdp4j stat: unknown argument '" + a + "' (usage: stat [--json] [PID...])");
                return 2;
            }
        }
        boolean all = pids.isEmpty();
        if (all) {
            String self = Long.toString(ProcessHandle.current().pid());
            for (VirtualMachineDescriptor d : VirtualMachine.list()) {
                if (!d.id().equals(self)) {
                    pids.add(d.id());
                }
            }
        }
        List<String> reports = new ArrayList<>();
        int failed = 0;
        for (String pid : pids) {
            try {
                String r = stat(pid, json);
                if (r != null) {
                    reports.add(r);
                } else if (!all) {
                    err.println("sdp4j stat: JVM " + pid + " does not run the sdp4j agent");
                    failed++;
                }
            } catch (Exception e) {
                if (!all) {
                    err.println("sdp4j stat: JVM " + pid + ": " + e);
                    failed++;
                }
            }
        }
        if (json) {
            out.println("[" + String.join(",\n", reports) + "]");
        } else {
            if (reports.isEmpty()) {
                out.println("no JVM of this user runs the sdp4j agent");
            }
            for (String r : reports) {
                out.print(r);
            }
        }
        return failed == 0 ? 0 : 1;
    }

    /** One JVM's report, or null when it does not run the agent. */
    private static String stat(String pid, boolean json) throws Exception {
        VirtualMachine vm = VirtualMachine.attach(pid);
        String url;
        try {
            Properties p = vm.getSystemProperties();
            if (p.getProperty(MARKER) == null) {
                return null;
            }
            url = vm.startLocalManagementAgent();
        } finally {
            vm.detach();
        }
        try (JMXConnector c = JMXConnectorFactory.connect(new JMXServiceURL(url))) {
            MBeanServerConnection s = c.getMBeanServerConnection();
            Set<ObjectName> names = new TreeSet<>(s.queryNames(new ObjectName("org.sdp4j:type=Transport,*"), null));
            ObjectName rulesName = new ObjectName("org.sdp4j:type=Rules");
            boolean rules = s.isRegistered(rulesName);
            ObjectName connName = new ObjectName("org.sdp4j:type=Connections");
            String[] conns = s.isRegistered(connName) ? (String[]) s.getAttribute(connName, "Open") : new String[0];
            StringBuilder b = new StringBuilder();
            if (json) {
                b.append("{\"pid\":").append(pid);
                if (rules) {
                    b.append(",\"program\":").append(quote((String) s.getAttribute(rulesName, "Program")))
                            .append(",\"config\":").append(quote((String) s.getAttribute(rulesName, "Source")))
                            .append(",\"rules\":").append(array((String[]) s.getAttribute(rulesName, "Rules")))
                            .append(",\"unseen\":").append(array((String[]) s.getAttribute(rulesName, "Unseen")))
                            .append(",\"negativeCache\":").append(array(negativeCache(s, rulesName)));
                }
                b.append(",\"transports\":[");
                boolean first = true;
                for (ObjectName n : names) {
                    b.append(first ? "" : ",").append("{\"name\":").append(quote(n.getKeyProperty("name")));
                    for (String a : new String[] {"Connects", "Accepts", "Listens", "Fallbacks", "Errors", "Open"}) {
                        b.append(",\"").append(a.toLowerCase()).append("\":").append(s.getAttribute(n, a));
                    }
                    b.append(",\"bytesIn\":").append(s.getAttribute(n, "BytesIn"))
                            .append(",\"bytesOut\":").append(s.getAttribute(n, "BytesOut"));
                    b.append(",\"fallbackReasons\":").append(array((String[]) s.getAttribute(n, "FallbackReasons")))
                            .append(",\"lastFallback\":").append(quote((String) s.getAttribute(n, "LastFallback")))
                            .append(",\"lastError\":").append(quote((String) s.getAttribute(n, "LastError")))
                            .append('}');
                    first = false;
                }
                b.append("],\"connections\":[");
                for (int i = 0; i < conns.length; i++) {
                    b.append(i == 0 ? "" : ",").append(connectionJson(conns[i]));
                }
                return b.append("]}").toString();
            }
            b.append("JVM ").append(pid);
            if (rules) {
                b.append("  program=").append(s.getAttribute(rulesName, "Program")).append("  config=")
                        .append(s.getAttribute(rulesName, "Source"));
            }
            b.append('\n');
            b.append(String.format("  %-10s %9s %9s %9s %9s %9s %6s %12s %12s%n", "transport", "connects", "accepts",
                    "listens", "fallbacks", "errors", "open", "bytes-in", "bytes-out"));
            for (ObjectName n : names) {
                b.append(String.format("  %-10s %9d %9d %9d %9d %9d %6d %12d %12d%n", n.getKeyProperty("name"),
                        (Long) s.getAttribute(n, "Connects"), (Long) s.getAttribute(n, "Accepts"),
                        (Long) s.getAttribute(n, "Listens"), (Long) s.getAttribute(n, "Fallbacks"),
                        (Long) s.getAttribute(n, "Errors"), (Long) s.getAttribute(n, "Open"),
                        (Long) s.getAttribute(n, "BytesIn"), (Long) s.getAttribute(n, "BytesOut")));
            }
            if (conns.length > 0) {
                b.append(String.format("  %-5s %-8s %-22s %-22s %-20s %8s %12s %12s  %s%n", "open", "role", "local",
                        "remote", "rule", "age", "bytes-in", "bytes-out", "via"));
                for (String line : conns) {
                    String[] f = line.split("\t", -1);
                    b.append(String.format("  %-5s %-8s %-22s %-22s %-20s %8s %12s %12s  %s%n", f[0], f[1], f[2],
                            f[3], f[4], age(Long.parseLong(f[5])), f[6], f[7], f[8]));
                }
            }
            for (ObjectName n : names) {
                String[] reasons = (String[]) s.getAttribute(n, "FallbackReasons");
                if (reasons.length > 0) {
                    b.append("  fallbacks to ").append(n.getKeyProperty("name")).append(": ")
                            .append(String.join(" ", reasons)).append("; last: ")
                            .append(s.getAttribute(n, "LastFallback")).append('\n');
                }
                String lastError = (String) s.getAttribute(n, "LastError");
                if (!lastError.isEmpty()) {
                    b.append("  last error on ").append(n.getKeyProperty("name")).append(": ").append(lastError)
                            .append('\n');
                }
            }
            if (rules) {
                for (String r : (String[]) s.getAttribute(rulesName, "Rules")) {
                    b.append("  rule ").append(r).append('\n');
                }
                for (String u : (String[]) s.getAttribute(rulesName, "Unseen")) {
                    b.append("  WARNING sockets sdp4j cannot see: ").append(u).append('\n');
                }
                for (String f : negativeCache(s, rulesName)) {
                    b.append("  on tcp for now (negative cache): ").append(f).append('\n');
                }
            }
            return b.toString();
        }
    }

    /** The Rules MBean's NegativeCache; empty from an agent that does not have it yet. */
    private static String[] negativeCache(MBeanServerConnection s, ObjectName rules) throws Exception {
        try {
            return (String[]) s.getAttribute(rules, "NegativeCache");
        } catch (javax.management.AttributeNotFoundException e) {
            return new String[0];
        }
    }

    /** One line of the Connections MBean (tab-separated, OpenConnections.FIELDS) as a JSON object. */
    static String connectionJson(String line) {
        String[] f = line.split("\t", -1);
        return "{\"transport\":" + quote(f[0]) + ",\"role\":" + quote(f[1]) + ",\"local\":" + quote(f[2])
                + ",\"remote\":" + quote(f[3]) + ",\"rule\":" + quote(f[4]) + ",\"ageMillis\":" + f[5]
                + ",\"bytesIn\":" + f[6] + ",\"bytesOut\":" + f[7] + ",\"via\":" + quote(f[8]) + "}";
    }

    /** An age for people: 850ms, 12s, 5m3s, 2h10m. */
    static String age(long ms) {
        if (ms < 1000) {
            return ms + "ms";
        }
        long sec = ms / 1000;
        if (sec < 60) {
            return sec + "s";
        }
        if (sec < 3600) {
            return sec / 60 + "m" + sec % 60 + "s";
        }
        return sec / 3600 + "h" + sec % 3600 / 60 + "m";
    }

    static String quote(String s) {
        StringBuilder b = new StringBuilder("\"");
        for (char ch : (s == null ? "" : s).toCharArray()) {
            switch (ch) {
                case '"' -> b.append("\\\"");
                case '\\' -> b.append("\\\\");
                case '\n' -> b.append("\\n");
                case '\r' -> b.append("\\r");
                case '\t' -> b.append("\\t");
                default -> {
                    if (ch < 0x20) {
                        b.append(String.format("\\u%04x", (int) ch));
                    } else {
                        b.append(ch);
                    }
                }
            }
        }
        return b.append('"').toString();
    }

    static String array(String[] items) {
        List<String> q = new ArrayList<>();
        for (String i : items) {
            q.add(quote(i));
        }
        return "[" + String.join(",", q) + "]";
    }
}
