package org.sdp4j.bench;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** The machine the report ran on: CPUs, memory, OS, load, and the database driver a measuring JVM logged ({@link Report}). */
final class ReportMachine {

    static Map<String, String> machine(String javaBin) {
        Map<String, String> m = new LinkedHashMap<>();
        m.put("cpus", Integer.toString(Runtime.getRuntime().availableProcessors()));
        m.put("cpu", firstMatch(Paths.get("/proc/cpuinfo"), "^model name\\s*:\\s*(.*)$", "unknown CPU"));
        String mem = firstMatch(Paths.get("/proc/meminfo"), "^MemTotal:\\s*(\\d+) kB", null);
        m.put("memory", mem == null ? "?" : String.format(Locale.ROOT, "%.0f GiB", Long.parseLong(mem) / 1048576.0));
        m.put("os", firstMatch(Paths.get("/etc/os-release"), "^PRETTY_NAME=\"?([^\"]*)\"?$", System.getProperty("os.name")));
        m.put("kernel", System.getProperty("os.version"));
        m.put("java", javaBin);
        return m;
    }

    static String firstMatch(Path f, String regex, String dflt) {
        try {
            Pattern p = Pattern.compile(regex);
            for (String line : Files.readAllLines(f, StandardCharsets.UTF_8)) {
                Matcher m = p.matcher(line);
                if (m.find()) return m.group(1).trim();
            }
        } catch (IOException | RuntimeException e) {
            // not Linux, or not readable
        }
        return dflt;
    }

    /** The address the benchmarks use (-Dsdp4j.bench.host on this JVM, passed on to the measuring JVMs). */
    static String host() {
        return System.getProperty("sdp4j.bench.host", "127.0.0.1");
    }

    static String loadAverage() {
        return String.format(Locale.ROOT, "%.2f", ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
    }

    /** "IBM Data Server Driver for JDBC and SQLJ 4.38.7 -> Apache Derby ...", as a measuring JVM logged it. */
    static String driverDescription(Path logs) {
        try (var l = Files.list(logs)) {
            for (Path p : (Iterable<Path>) l.sorted()::iterator) {
                if (!p.getFileName().toString().endsWith(".log") || p.getFileName().toString().startsWith("decisions-")) continue;
                String d = firstMatch(p, "^bench-server: database: (.*)$", null);
                if (d != null) return d;
            }
        } catch (IOException e) {
            // below
        }
        return "IBM Data Server Driver for JDBC (JCC), version not logged";
    }
}
