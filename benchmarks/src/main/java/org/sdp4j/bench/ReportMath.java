package org.sdp4j.bench;

import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.openjdk.jmh.util.ListStatistics;

import org.sdp4j.bench.ReportModel.Series;

/** The report's derived quantities: what a series stands for, unit conversions and (paired) ratios ({@link Report}). */
final class ReportMath {

    static final String CI = "99.9%";

    /** What a benchmark measures, for tables and charts. */
    static final class Quantity {
        final String name, unit;
        final boolean higherIsBetter;
        final double value, error;

        Quantity(String name, String unit, boolean higherIsBetter, double value, double error) {
            this.name = name;
            this.unit = unit;
            this.higherIsBetter = higherIsBetter;
            this.value = value;
            this.error = error;
        }
    }

    /** The quantity a series stands for: round-trip µs, bandwidth Mbit/s, or the statement's time. */
    static Quantity quantity(Series s) {
        Quantity g = ReportGroups.quantity(s);
        if (g != null) return g;
        double v = s.score(), e = s.error();
        if (s.bench.endsWith("Stream")) {
            int size = ReportJmh.sizeOf(s.label());
            double bits = (double) NetPipe.messages(size) * size * 8;
            double us = toMicros(v, s.unit);
            double mbps = bits / us;
            return new Quantity("bandwidth", "Mbit/s", true, mbps, Double.isFinite(e) ? mbps * e / v : Double.NaN);
        }
        if (s.bench.equals("JccWorkload.insertBlock")) {
            int rows = rowsOf(s);
            double us = toMicros(v, s.unit) / rows, eu = toMicros(e, s.unit) / rows;
            return new Quantity("time per INSERT in the block", "us", false, us, eu);
        }
        return new Quantity(s.bench.endsWith("Latency") ? "round trip" : "time", unitShort(s.unit), false, v, e);
    }

    static int rowsOf(Series s) {
        Matcher m = Pattern.compile("rows=(\\d+)").matcher(s.params);
        return m.find() ? Integer.parseInt(m.group(1)) : 4000;
    }

    static double toMicros(double v, String unit) {
        switch (unitShort(unit)) {
            case "ns": return v / 1e3;
            case "ms": return v * 1e3;
            case "s": return v * 1e6;
            default: return v;
        }
    }

    static double toSeconds(double v, String unit) {
        return toMicros(v, unit) / 1e6;
    }

    static String unitShort(String unit) {
        return unit == null ? "" : unit.replace("/op", "");
    }

    /** Ratio a/b with its error propagated to first order (relative errors in quadrature). */
    static double[] ratio(double a, double ea, double b, double eb) {
        return CompareTransports.ratio(a, ea, b, eb);
    }

    /**
     * The ratio of two series' quantities (a over b) with its 99.9% confidence interval, from the iterations the two ran
     * side by side (same round, same iteration number: adjacent in time). Load from other work on the machine scales
     * both members of a pair alike, so the analysis is on log ratios: ratio = exp(mean of log(x/y)) (the geometric mean
     * of the paired ratios), interval = exp(mean ± Student t x standard error). With fewer than 3 pairs: the ratio of
     * the scores and the unpaired propagation of both errors. Returns {ratio, half-width of the interval (for "±"),
     * pairs, low, high}.
     */
    static double[] pairedRatio(Series a, Series b) {
        Quantity qa = quantity(a), qb = quantity(b);
        ListStatistics lr = new ListStatistics();
        for (Map.Entry<String, Double> e : a.pairs.entrySet()) {
            Double y = b.pairs.get(e.getKey());
            if (y != null && y > 0 && e.getValue() > 0) lr.addValue(Math.log(e.getValue() / y));
        }
        long n = lr.getN();
        if (n < 3) {
            double[] u = ratio(qa.value, qa.error, qb.value, qb.error);
            return new double[] {u[0], u[1], n, u[0] - u[1], u[0] + u[1]};
        }
        double m = lr.getMean(), h = lr.getMeanErrorAt(0.999);
        double t = Math.exp(m), lo = Math.exp(m - h), hi = Math.exp(m + h);   // ratio of times
        if (qa.higherIsBetter) {   // a rate: the inverse
            double l2 = 1 / hi, h2 = 1 / lo;
            t = 1 / t;
            lo = l2;
            hi = h2;
        }
        return new double[] {t, (hi - lo) / 2, n, lo, hi};
    }
}
