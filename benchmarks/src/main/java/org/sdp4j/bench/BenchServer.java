package org.sdp4j.bench;

import java.io.BufferedReader;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

import org.openjdk.jmh.results.BenchmarkResult;
import org.openjdk.jmh.results.IterationResult;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.results.format.ResultFormatFactory;
import org.openjdk.jmh.results.format.ResultFormatType;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.format.OutputFormat;
import org.openjdk.jmh.runner.format.OutputFormatFactory;
import org.openjdk.jmh.runner.options.ChainedOptionsBuilder;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;
import org.openjdk.jmh.runner.options.VerboseMode;

/**
 * A measuring JVM that {@link Report} drives one JMH run at a time: {@link Report} starts one per transport
 * configuration (with that configuration's {@code -javaagent}, or none) and has them take turns, iteration by
 * iteration, so that whatever else loads the machine during a stretch of time loads every transport alike.
 * JMH runs in this JVM ({@code -f 0}): the JVM that measures is the JVM whose sockets the agent routes.
 *
 * <p>Protocol, one line each way. Standard input: {@code run ID REGEX WARMUPS WARMUP_MS ITERATIONS MS [NAME=V ...]}
 * (MS 0: the mode's default, e.g. single shot) or {@code quit}. Standard output, and nothing else is written there:
 * {@code @@ready}, then per run {@code @@ok ID SCORE UNIT GEOMEAN} (the measured iteration's score, JMH's arithmetic
 * mean, and the geometric mean of its executions' times) or
 * {@code @@fail ID REASON}. JMH's console output and everything else this JVM prints go to the log file; every
 * result so far is kept in one JMH JSON file, rewritten every 30 seconds and at {@code quit}.
 *
 * <pre>BenchServer --json FILE --log FILE [--db-rows N]</pre>
 * {@code --db-rows N}: connect to the database and fill the SELECT table with N rows before {@code @@ready}.
 */
public final class BenchServer {

    private BenchServer() {}

    public static void main(String[] args) throws IOException {
        Path json = null, log = null;
        int dbRows = 0;
        for (int i = 0; i + 1 < args.length; i += 2) {
            if (args[i].equals("--json")) json = Paths.get(args[i + 1]);
            else if (args[i].equals("--log")) log = Paths.get(args[i + 1]);
            else if (args[i].equals("--db-rows")) dbRows = Integer.parseInt(args[i + 1]);
        }
        if (json == null || log == null) {
            System.err.println("usage: BenchServer --json FILE --log FILE [--db-rows N]");
            System.exit(2);
        }
        PrintStream proto = new PrintStream(new FileOutputStream(java.io.FileDescriptor.out), true, StandardCharsets.UTF_8);
        PrintStream logOut = new PrintStream(new FileOutputStream(log.toFile(), true), true, StandardCharsets.UTF_8);
        System.setOut(logOut);   // nothing but the protocol on the real standard output
        System.setErr(logOut);
        logOut.printf(Locale.ROOT, "bench-server in %s %s, agent: %s%n", System.getProperty("java.vm.name"),
                System.getProperty("java.runtime.version"), Db2BatchMain.agentDescription());
        OutputFormat fmt = OutputFormatFactory.createFormatInstance(logOut, VerboseMode.NORMAL);
        List<RunResult> all = new ArrayList<>();
        if (dbRows > 0) {
            // the database and its tables before the first run, while the other JVMs start theirs
            long t0 = System.nanoTime();
            try {
                java.sql.Connection c = JccWorkload.DerbyFixture.prepare(dbRows);
                logOut.printf(Locale.ROOT, "bench-server: database ready in %.1f s%n", (System.nanoTime() - t0) / 1e9);
                logOut.println("bench-server: database: " + Jcc.describe(c));
            } catch (Exception e) {
                e.printStackTrace(logOut);   // each database run then fails with the same cause, and says so
            }
        }
        proto.println("@@ready");
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String line;
        int rc = 0;
        long lastWrite = System.nanoTime();
        while ((line = in.readLine()) != null) {
            String[] w = line.trim().split("\\s+");
            if (w.length == 0 || w[0].isEmpty()) continue;
            if (w[0].equals("quit")) break;
            String id = w.length > 1 ? w[1] : "?";
            try {
                if (!w[0].equals("run") || w.length < 7) throw new IllegalArgumentException("bad command: " + line);
                logOut.println("bench-server: " + line);
                long t0 = System.nanoTime();
                RunResult r = run(w, fmt);
                all.add(r);
                if (System.nanoTime() - lastWrite > 30_000_000_000L) {   // now and then, and at the end
                    writeJson(all, json);
                    lastWrite = System.nanoTime();
                }
                logOut.printf(Locale.ROOT, "bench-server: run %s took %.0f ms%n", id, (System.nanoTime() - t0) / 1e6);
                proto.printf(Locale.ROOT, "@@ok %s %s %s %s%n", id, Double.toString(r.getPrimaryResult().getScore()),
                        r.getPrimaryResult().getScoreUnit().replace(' ', '_'), Double.toString(geomean(r)));
            } catch (Throwable t) {
                rc = 1;
                t.printStackTrace(logOut);
                proto.println("@@fail " + id + " " + reason(t));
            }
        }
        if (!all.isEmpty()) writeJson(all, json);
        logOut.flush();
        System.exit(rc);   // the database fixture's shutdown hook stops Derby
    }

    static RunResult run(String[] w, OutputFormat fmt) throws Exception {
        int warmups = Integer.parseInt(w[3]), iterations = Integer.parseInt(w[5]);
        double warmupMs = Double.parseDouble(w[4]), ms = Double.parseDouble(w[6]);
        ChainedOptionsBuilder o = new OptionsBuilder()
                .include(w[2])
                .forks(0)
                .warmupIterations(warmups)
                .measurementIterations(iterations)
                .shouldFailOnError(true);
        if (warmupMs > 0) o = o.warmupTime(new TimeValue(Math.round(warmupMs * 1000), TimeUnit.MICROSECONDS));
        if (ms > 0) o = o.measurementTime(new TimeValue(Math.round(ms * 1000), TimeUnit.MICROSECONDS));
        for (int k = 7; k < w.length; k++) {
            int eq = w[k].indexOf('=');
            if (eq <= 0) throw new IllegalArgumentException("bad parameter " + w[k]);
            o = o.param(w[k].substring(0, eq), w[k].substring(eq + 1).split(","));
        }
        Collection<RunResult> rs = new Runner(o.build(), fmt).run();
        if (rs.size() != 1) throw new IllegalStateException("expected one benchmark to run, JMH ran " + rs.size() + " (" + w[2] + ")");
        return rs.iterator().next();
    }

    /** Geometric mean of every measured execution's time (sample and single-shot modes), else of the iteration scores. */
    static double geomean(RunResult r) {
        double sumLog = 0;
        long n = 0;
        for (BenchmarkResult br : r.getBenchmarkResults()) {
            for (IterationResult ir : br.getIterationResults()) {
                Iterator<Map.Entry<Double, Long>> it = ir.getPrimaryResult().getStatistics().getRawData();
                while (it.hasNext()) {
                    Map.Entry<Double, Long> e = it.next();
                    if (e.getKey() > 0 && e.getValue() > 0) {
                        sumLog += Math.log(e.getKey()) * e.getValue();
                        n += e.getValue();
                    }
                }
            }
        }
        return n == 0 ? Double.NaN : Math.exp(sumLog / n);
    }

    static void writeJson(List<RunResult> all, Path json) throws IOException {
        Path tmp = json.resolveSibling(json.getFileName() + ".tmp");
        try (PrintStream p = new PrintStream(new FileOutputStream(tmp.toFile()), false, StandardCharsets.UTF_8)) {
            ResultFormatFactory.getInstance(ResultFormatType.JSON, p).writeOut(all);
        }
        Files.move(tmp, json, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }

    /** The innermost cause's message, on one line: what a report can show. */
    static String reason(Throwable t) {
        Throwable x = t;
        while (x.getCause() != null && x.getCause() != x) x = x.getCause();
        // JMH's BenchmarkException carries the benchmark's own exception as a suppressed one
        while (x.getSuppressed().length > 0) {
            x = x.getSuppressed()[0];
            while (x.getCause() != null && x.getCause() != x) x = x.getCause();
        }
        String s = x.getClass().getName() + ": " + x.getMessage();
        return s.replace('\n', ' ').replace('\r', ' ');
    }
}
