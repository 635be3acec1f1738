package org.sdp4j.bench;

import java.io.PrintStream;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** The report's options ({@link Report}): the profiles, the command line and its usage text. */
final class ReportSettings {

    static final List<String> ALL_CONFIGS = List.of("none", "tcp", "both", "sdp", "ucx");

    static final class Settings {
        String profile = "quick";
        int rounds = 2;
        // quick: short iterations, many of them: the JVMs take turns more often, so pairs are closer in time
        int netWarmup = 1, netIterations = 6;
        double netWarmupMs = 100, netMs = 50;
        int dbWarmup = 1, dbIterations = 8, blockIterations = 3;
        double dbWarmupMs = 500, dbMs = 100;
        List<Integer> sizes = sizes(NetPipe.QUICK_SIZES);
        int perturb = 0;
        int rows = 4000;
        List<String> configs = new ArrayList<>(ALL_CONFIGS);
        List<String> groups = new ArrayList<>(List.of("db", "net"));
        Path out = Paths.get("benchmarks", "target", "report");
        Path agent;
        String jvm;
        Path baseline;
        List<String> forkJvmArgs = new ArrayList<>(List.of("-Xms512m", "-Xmx512m"));
        int timeoutS = 300;         // per JMH run in a measuring JVM: beyond this it is stuck (its threads are dumped)
        String command = "benchmarks/report.sh";
        // issue 13's groups (ReportGroups): many connections, ucx_perftest, H2, HikariCP from virtual threads
        List<Integer> concN = new ArrayList<>(List.of(1, 16, 256, 1000));
        List<String> concThreads = new ArrayList<>(List.of("platform", "virtual"));
        String concServer = "jvm";
        int concIterations = 5, burstIterations = 5, perftestIterations = 6;
        double concWarmupMs = 300, concMs = 300;
        long perftestExchanges = 20_000;

        void full() {
            profile = "full";
            rounds = 3;
            netWarmup = 1; netWarmupMs = 300; netIterations = 10; netMs = 100;
            dbWarmup = 2; dbWarmupMs = 1000; dbIterations = 20; dbMs = 200; blockIterations = 3;
            concIterations = 10; concMs = 500; burstIterations = 5; perftestIterations = 10; perftestExchanges = 200_000;
            List<Integer> all = new ArrayList<>();
            for (int s = 1; s <= 8 << 20; s <<= 1) all.add(s);
            sizes = all;
        }

        /** Message sizes with NetPIPE's perturbations (size - p and size + p next to each size above 2p). */
        List<Integer> sweepSizes() {
            java.util.TreeSet<Integer> s = new java.util.TreeSet<>(sizes);
            if (perturb > 0) {
                for (int x : sizes) {
                    if (x > 2 * perturb) {
                        s.add(x - perturb);
                        s.add(x + perturb);
                    }
                }
            }
            return new ArrayList<>(s);
        }
    }

    static List<Integer> sizes(String... s) {
        List<Integer> l = new ArrayList<>();
        for (String x : s) l.add(parseSize(x));
        return l;
    }

    /** "64", "1K", "64KiB", "8M", "8MiB" to bytes. */
    static int parseSize(String s) {
        Matcher m = Pattern.compile("(?i)\\s*(\\d+)\\s*([km]?)(i?b)?\\s*").matcher(s);
        if (!m.matches()) throw new IllegalArgumentException("bad message size '" + s + "'");
        long v = Long.parseLong(m.group(1));
        String u = m.group(2).toLowerCase(Locale.ROOT);
        v = u.equals("k") ? v << 10 : u.equals("m") ? v << 20 : v;
        if (v < 1 || v > 64 << 20) throw new IllegalArgumentException("message size out of range (1 B .. 64 MiB): " + s);
        return (int) v;
    }

    static Settings parse(String[] args) {
        Settings s = new Settings();
        // the profile first, so explicit options override it wherever they stand
        for (String a : args) if (a.equals("--full")) s.full();
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            switch (a) {
                case "--quick": case "--full": break;
                case "--baseline": s.baseline = Paths.get(value(args, ++i, a)); break;
                case "--configs": s.configs = new ArrayList<>(List.of(value(args, ++i, a).split(","))); break;
                case "--groups": s.groups = new ArrayList<>(List.of(value(args, ++i, a).split(","))); break;
                case "--rounds": s.rounds = positive(value(args, ++i, a), a); break;
                case "--sizes": s.sizes = sizes(value(args, ++i, a).split(",")); break;
                case "--perturb": s.perturb = Integer.parseInt(value(args, ++i, a)); break;
                case "--rows": s.rows = positive(value(args, ++i, a), a); break;
                case "--iterations": s.netIterations = s.dbIterations = positive(value(args, ++i, a), a); break;
                case "--iteration-ms": s.netMs = s.dbMs = positive(value(args, ++i, a), a); break;
                // a measuring JVM's warm-up before its first iteration, every group's: the quick profile's 0.1-0.5 s
                // leave the JIT compiling through the measurement (issue 18, thirteenth pass)
                case "--warmup-ms": s.netWarmupMs = s.dbWarmupMs = s.concWarmupMs = positive(value(args, ++i, a), a); break;
                case "--blocks": s.blockIterations = positive(value(args, ++i, a), a); break;
                case "--out": s.out = Paths.get(value(args, ++i, a)); break;
                case "--agent": s.agent = Paths.get(value(args, ++i, a)); break;
                case "--jvm": s.jvm = value(args, ++i, a); break;
                case "--fork-jvm-args": s.forkJvmArgs = new ArrayList<>(List.of(value(args, ++i, a).trim().split("\\s+"))); break;
                case "--conc-n": s.concN = new ArrayList<>(); for (String n : value(args, ++i, a).split(",")) s.concN.add(positive(n, a)); break;
                case "--conc-threads": s.concThreads = new ArrayList<>(List.of(value(args, ++i, a).split(","))); break;
                case "--conc-server": s.concServer = value(args, ++i, a); break;
                case "--timeout": s.timeoutS = positive(value(args, ++i, a), a); break;
                case "--command": s.command = value(args, ++i, a); break;
                default: throw new IllegalArgumentException("unknown option " + a);
            }
        }
        for (String c : s.configs) {
            if (!c.matches("[a-z][a-z0-9]*") && !CompareTransports.VARIANTS.containsKey(c)) throw new IllegalArgumentException("bad configuration name '" + c + "' (" + ALL_CONFIGS + " or " + CompareTransports.VARIANTS.keySet() + ")");
        }
        if (!s.configs.contains("none")) s.configs.add(0, "none");   // the baseline of every ratio
        for (String g : s.groups) {
            if (!g.equals("db") && !g.equals("net") && !ReportGroups.GROUPS.contains(g)) {
                throw new IllegalArgumentException("unknown group '" + g + "' (db, net, conc, perftest, users, pool)");
            }
        }
        for (String t : s.concThreads) ThreadKind.of(t);
        if (!s.concServer.equals("jvm") && !s.concServer.equals("peer")) throw new IllegalArgumentException("--conc-server is jvm or peer");
        if (s.agent == null) s.agent = CompareTransports.findAgent();
        // every sdp4j tunable given after "--" reaches the measuring JVMs (and their peers, which inherit their
        // arguments): before, only this list did, and "-- -Dsdp4j.ucx.poll=0" silently measured the default
        for (String p : new java.util.TreeSet<>(System.getProperties().stringPropertyNames())) {
            if (p.startsWith("sdp4j.") || p.equals("java.net.preferIPv4Stack")) {
                s.forkJvmArgs.add("-D" + p + "=" + System.getProperty(p));
            }
        }
        return s;
    }

    private static String value(String[] args, int i, String opt) {
        if (i >= args.length) throw new IllegalArgumentException(opt + " needs a value");
        return args[i];
    }

    private static int positive(String v, String opt) {
        int n = Integer.parseInt(v);
        if (n < 1) throw new IllegalArgumentException(opt + " must be >= 1");
        return n;
    }

    static void usage(PrintStream s) {
        s.println("usage: Report [--quick|--full] [--baseline SUMMARY.json] [--configs none,tcp,both,sdp,ucx] [--groups db,net]");
        s.println("              [--rounds N] [--iterations N] [--iteration-ms MS] [--warmup-ms MS] [--blocks N] [--sizes 1,64,1K,...] [--perturb N]");
        s.println("              [--rows N] [--out DIR] [--conc-n 1,16,256,1000] [--conc-threads platform,virtual] [--conc-server jvm|peer]");
        s.println("  groups: db, net (default), conc, perftest, users, pool (issue 13: see ReportGroups)");
        s.println("              [--agent JAR] [--jvm PATH] [--fork-jvm-args \"-Xmx512m ...\"] [--timeout S]");
        s.println("  -Djdbc.url=... -Djdbc.user=... -Djdbc.password=... on this JVM are passed to the database JVMs (a real Db2).");
    }
}
