package org.sdp4j.bench;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.openjdk.jmh.util.ListStatistics;

/** What the report measured: the transport configurations and the series of measurements ({@link Report}). */
final class ReportModel {

    /** One transport configuration and whether (and how) it ran. */
    static final class Config {
        final CompareTransports.Config probe;
        final String name;
        String shortReason;                                  // for charts
        final Map<String, Integer> decisions = new TreeMap<>();   // transport= counts in the measuring JVMs
        final List<String> fallbacks = new ArrayList<>();
        final List<String[]> failures = new ArrayList<>();         // {benchmark (round), reason, log}

        Config(String name) {
            this.name = name;
            this.probe = new CompareTransports.Config(name);
        }

        boolean available() { return probe.unavailable == null; }
    }

    /**
     * All measurements of one benchmark (with parameters) in one configuration, pooled over rounds. The statistic is
     * the geometric mean of the executions' times (db2batch reports it next to the arithmetic mean): on a machine
     * shared with other work, one execution stalled for 100 ms moves the arithmetic mean of an iteration of 1000
     * executions by tens of percent and the geometric mean by well under one.
     */
    static final class Series {
        final String bench, params, config;
        String unit = "", mode = "";
        final ListStatistics logIterations = new ListStatistics();   // log of each iteration's geometric mean
        final Map<Integer, ListStatistics> byRound = new TreeMap<>();
        final Map<String, Double> pairs = new LinkedHashMap<>();     // "round:k" -> iteration geometric mean
        final List<String> failures = new ArrayList<>();
        long count;            // executions measured (from JMH's JSON)
        double total, min = Double.MAX_VALUE, max = -Double.MAX_VALUE, sumLog;
        boolean perOp;         // count/total/min/max/sumLog are per execution
        final Map<Integer, double[]> roundLogs = new TreeMap<>();   // round -> {sum of log(execution time), executions}

        Series(String bench, String params, String config) {
            this.bench = bench;
            this.params = params;
            this.config = config;
        }

        /** One measured iteration: the geometric mean of its executions' times. */
        void addIteration(int round, int k, double geomean, String unit) {
            if (!(geomean > 0)) return;
            this.unit = unit;
            logIterations.addValue(Math.log(geomean));
            byRound.computeIfAbsent(round, x -> new ListStatistics()).addValue(geomean);
            pairs.put(round + ":" + k, geomean);
        }

        /** One execution's time (or {@code n} executions of that time) from JMH's histogram or single-shot data. */
        void addValue(double v, long n) {
            addValue(1, v, n);
        }

        void addValue(int round, double v, long n) {
            if (!(v > 0) || n <= 0) return;
            double[] r = roundLogs.computeIfAbsent(round, x -> new double[2]);
            r[0] += Math.log(v) * n;
            r[1] += n;
            perOp = true;
            count += n;
            total += v * n;
            min = Math.min(min, v);
            max = Math.max(max, v);
            sumLog += Math.log(v) * n;
        }

        boolean ok() {
            return logIterations.getN() > 0;
        }

        long iterations() {
            return logIterations.getN();
        }

        /** The geometric mean over all executions (from JMH's JSON), else over the iterations. */
        double score() {
            if (perOp && count > 0) return Math.exp(sumLog / count);
            return ok() ? Math.exp(logIterations.getMean()) : Double.NaN;
        }

        /** Half the width of the 99.9% confidence interval of {@link #score} (Student t on the iterations' logs). */
        double error() {
            if (logIterations.getN() <= 2) return Double.NaN;
            double h = logIterations.getMeanErrorAt(0.999);
            return score() * (Math.exp(h) - Math.exp(-h)) / 2;
        }

        /** Arithmetic mean over all executions (NaN without JMH's per-execution data). */
        double mean() {
            return perOp && count > 0 ? total / count : Double.NaN;
        }

        double geomean() {
            return score();
        }

        String label() {
            return bench + (params.isEmpty() ? "" : " " + params);
        }
    }
}
