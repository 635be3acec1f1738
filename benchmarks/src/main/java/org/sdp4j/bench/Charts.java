package org.sdp4j.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.DoubleFunction;

/**
 * Small, dependency-free SVG charts for the report: log-log line charts (a quantity against message size) and
 * horizontal bar panels (one value per transport, with error bars). Plain SVG 1.1 with a fixed viewBox, system fonts,
 * Okabe-Ito colours (distinguishable with the common colour-vision deficiencies) and a distinct marker per series.
 */
public final class Charts {

    private Charts() {}

    /** Colour of a transport configuration, stable across charts. */
    public static String color(String config) {
        switch (config) {
            case "none": return "#333333";
            case "tcp": return "#0072B2";
            case "both": return "#E69F00";
            case "sdp": return "#009E73";
            case "ucx": return "#CC79A7";
            default: return "#D55E00";
        }
    }

    /** Marker shape index of a transport configuration. */
    public static int marker(String config) {
        switch (config) {
            case "none": return 0;
            case "tcp": return 1;
            case "both": return 2;
            case "sdp": return 3;
            default: return 4;
        }
    }

    /** A point; {@code err} is a half-width (NaN when unknown). */
    public record Point(double x, double y, double err) {}

    /** One series of a line chart. */
    public static final class Line {
        final String name, color;
        final boolean dashed, hollow;
        final int marker;
        final List<Point> points = new ArrayList<>();

        public Line(String name, String color, boolean dashed, boolean hollow, int marker) {
            this.name = name;
            this.color = color;
            this.dashed = dashed;
            this.hollow = hollow;
            this.marker = marker;
        }

        public Line add(double x, double y, double err) {
            if (Double.isFinite(y) && y > 0) points.add(new Point(x, y, err));
            return this;
        }
    }

    /** One bar: a value with its error and an optional note after it (grey), or a reason why there is none ({@code missing}). */
    public record Bar(String label, String color, double value, double err, String note, String missing) {}

    /** A panel of bars sharing one linear axis. */
    public record Panel(String title, String unit, List<Bar> bars) {}

    // ------------------------------------------------------------------------------------------ line chart

    static final int W = 820, TOP = 62, PLOT_H = 340;

    /**
     * A chart of {@code lines} on log-log axes.
     *
     * @param xTick label of an x tick value, e.g. bytes as "64 KiB"
     * @param yTick label of a y tick value (a power of ten), e.g. "100 µs"
     * @param notes extra legend lines (e.g. "sdp: unavailable"), drawn in grey
     */
    public static String logLog(String title, String subtitle, String xLabel, String yLabel, List<Double> xTicks,
                                DoubleFunction<String> xTick, DoubleFunction<String> yTick, List<Line> lines, List<String> notes) {
        double xmin = Double.MAX_VALUE, xmax = -Double.MAX_VALUE, ymin = Double.MAX_VALUE, ymax = -Double.MAX_VALUE;
        for (Line l : lines) {
            for (Point p : l.points) {
                xmin = Math.min(xmin, p.x());
                xmax = Math.max(xmax, p.x());
                double lo = Double.isFinite(p.err()) && p.err() < p.y() ? p.y() - p.err() : p.y();
                double hi = Double.isFinite(p.err()) ? p.y() + p.err() : p.y();
                ymin = Math.min(ymin, lo);
                ymax = Math.max(ymax, hi);
            }
        }
        for (double t : xTicks) {
            xmin = Math.min(xmin, t);
            xmax = Math.max(xmax, t);
        }
        boolean empty = ymin > ymax;
        if (empty) {
            xmin = 1; xmax = 8 << 20; ymin = 1; ymax = 10;
        }
        double lx0 = Math.log10(xmin), lx1 = Math.log10(xmax);
        if (lx1 - lx0 < 1e-9) { lx0 -= 0.5; lx1 += 0.5; }
        double pad = (lx1 - lx0) * 0.04;
        lx0 -= pad;
        lx1 += pad;
        double ly0 = Math.floor(Math.log10(ymin) + 1e-9), ly1 = Math.ceil(Math.log10(ymax) - 1e-9);
        if (ly1 <= ly0) ly1 = ly0 + 1;
        // room on the left for the longest y tick label, then the plot, then the legend
        int longest = 0;
        for (int d = (int) ly0; d <= (int) ly1; d++) longest = Math.max(longest, yTick.apply(Math.pow(10, d)).length());
        final int LEFT = 40 + longest * 7, PLOT_W = 578 - LEFT, LEGEND_X = LEFT + PLOT_W + 28;
        final double fx0 = lx0, fx1 = lx1, fy0 = ly0, fy1 = ly1;
        DoubleFunction<Double> px = x -> LEFT + (Math.log10(x) - fx0) / (fx1 - fx0) * PLOT_W;
        DoubleFunction<Double> py = y -> TOP + PLOT_H - (Math.log10(y) - fy0) / (fy1 - fy0) * PLOT_H;

        int legendRows = lines.size() + notes.size();
        int h = Math.max(TOP + PLOT_H + 64, TOP + 24 + legendRows * 22);
        StringBuilder b = header(W, h, title, subtitle);

        // grid: y decades (labelled) and their 2..9 multiples; x ticks
        b.append("<g class=\"grid\">\n");
        for (int d = (int) ly0; d <= (int) ly1; d++) {
            double y = Math.pow(10, d);
            line(b, LEFT, py.apply(y), LEFT + PLOT_W, py.apply(y), "#c8c8c8", 1, null);
            text(b, LEFT - 8, py.apply(y) + 4, "end", 12, "#222", yTick.apply(y));
            if (d < (int) ly1) {
                for (int m = 2; m <= 9; m++) line(b, LEFT, py.apply(m * y), LEFT + PLOT_W, py.apply(m * y), "#ececec", 1, null);
            }
        }
        for (double t : xTicks) {
            double x = px.apply(t);
            line(b, x, TOP, x, TOP + PLOT_H, "#dcdcdc", 1, null);
            line(b, x, TOP + PLOT_H, x, TOP + PLOT_H + 5, "#444", 1, null);
            text(b, x, TOP + PLOT_H + 20, "middle", 12, "#222", xTick.apply(t));
        }
        b.append("</g>\n");
        rect(b, LEFT, TOP, PLOT_W, PLOT_H, "none", "#444");
        text(b, LEFT + PLOT_W / 2.0, TOP + PLOT_H + 46, "middle", 13, "#111", xLabel);
        b.append(String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" font-size=\"13\" fill=\"#111\" "
                + "transform=\"rotate(-90 %.1f %.1f)\">%s</text>\n", 18.0, TOP + PLOT_H / 2.0, 18.0, TOP + PLOT_H / 2.0, esc(yLabel)));
        if (empty) text(b, LEFT + PLOT_W / 2.0, TOP + PLOT_H / 2.0, "middle", 14, "#888", "no data");

        // series: lines, error bars, markers; markers of overlapping series are spread a few pixels sideways
        int n = lines.size();
        for (int k = 0; k < n; k++) {
            Line l = lines.get(k);
            double dodge = (k - (n - 1) / 2.0) * 3.0;
            StringBuilder path = new StringBuilder();
            for (Point p : l.points) {
                path.append(path.length() == 0 ? "M" : " L").append(String.format(Locale.ROOT, "%.1f %.1f", px.apply(p.x()) + dodge, py.apply(p.y())));
            }
            b.append("<g>\n");
            if (path.length() > 0) {
                b.append(String.format(Locale.ROOT, "<path d=\"%s\" fill=\"none\" stroke=\"%s\" stroke-width=\"1.8\"%s/>\n", path, l.color,
                        l.dashed ? " stroke-dasharray=\"6 4\"" : ""));
            }
            for (Point p : l.points) {
                double x = px.apply(p.x()) + dodge;
                if (Double.isFinite(p.err()) && p.err() > 0) {
                    double lo = p.y() - p.err() > 0 ? py.apply(p.y() - p.err()) : TOP + PLOT_H;
                    double hi = py.apply(p.y() + p.err());
                    line(b, x, Math.max(TOP, hi), x, Math.min(TOP + PLOT_H, lo), l.color, 1, "0.7");
                }
                marker(b, l.marker, x, py.apply(p.y()), l.color, l.hollow);
            }
            b.append("</g>\n");
        }

        // legend
        double ly = TOP + 8;
        for (Line l : lines) {
            b.append(String.format(Locale.ROOT, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"%s\" stroke-width=\"1.8\"%s/>\n",
                    LEGEND_X, ly, LEGEND_X + 30, ly, l.color, l.dashed ? " stroke-dasharray=\"6 4\"" : ""));
            marker(b, l.marker, LEGEND_X + 15, ly, l.color, l.hollow);
            text(b, LEGEND_X + 38, ly + 4, "start", 12, "#111", l.name);
            ly += 22;
        }
        for (String note : notes) {
            text(b, LEGEND_X, ly + 4, "start", 12, "#777", note);
            ly += 22;
        }
        return b.append("</svg>\n").toString();
    }

    // ------------------------------------------------------------------------------------------ bar panels

    /** Horizontal bars, one panel per quantity, each with its own linear axis from 0. */
    public static String bars(String title, String subtitle, List<Panel> panels) {
        int labelW = 120, barW = 470, rowH = 26;
        int left = 20 + labelW;
        int h = TOP;
        for (Panel p : panels) h += 30 + p.bars().size() * rowH + 40;
        h += 8;
        StringBuilder b = header(W, h, title, subtitle);
        int y = TOP;
        for (Panel p : panels) {
            text(b, 20, y + 14, "start", 14, "#111", p.title(), true);
            y += 26;
            double max = 0;
            for (Bar bar : p.bars()) {
                if (bar.missing() == null && Double.isFinite(bar.value())) {
                    max = Math.max(max, bar.value() + (Double.isFinite(bar.err()) ? bar.err() : 0));
                }
            }
            double step = niceStep(max > 0 ? max : 1);
            double top = Math.ceil((max > 0 ? max : 1) / step) * step;
            int plotH = p.bars().size() * rowH;
            for (double t = 0; t <= top + step / 2; t += step) {
                double x = left + t / top * barW;
                line(b, x, y, x, y + plotH, t == 0 ? "#444" : "#dcdcdc", 1, null);
                text(b, x, y + plotH + 15, "middle", 11, "#333", plain(t, step));
            }
            text(b, left + barW / 2.0, y + plotH + 32, "middle", 12, "#111", p.unit());
            for (int k = 0; k < p.bars().size(); k++) {
                Bar bar = p.bars().get(k);
                double cy = y + k * rowH + rowH / 2.0;
                text(b, left - 8, cy + 4, "end", 13, "#111", bar.label());
                if (bar.missing() != null) {
                    text(b, left + 6, cy + 4, "start", 12, "#777", bar.missing());
                    continue;
                }
                double w = Math.max(1, bar.value() / top * barW);
                rect(b, left, cy - 8, w, 16, bar.color(), null);
                String label = ReportMarkdown.sig(bar.value());
                if (Double.isFinite(bar.err()) && bar.err() > 0) {
                    double x0 = left + Math.max(0, bar.value() - bar.err()) / top * barW;
                    double x1 = left + (bar.value() + bar.err()) / top * barW;
                    line(b, x0, cy, x1, cy, "#111", 1.3, null);
                    line(b, x0, cy - 5, x0, cy + 5, "#111", 1.3, null);
                    line(b, x1, cy - 5, x1, cy + 5, "#111", 1.3, null);
                    label += " ± " + ReportMarkdown.sig(bar.err());
                }
                double tx = left + Math.max(w, Double.isFinite(bar.err()) ? (bar.value() + bar.err()) / top * barW : w) + 8;
                b.append(String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"12\" fill=\"#111\">%s%s</text>%n", tx, cy + 4,
                        esc(label), bar.note() == null ? "" : "<tspan dx=\"12\" fill=\"#666\">" + esc(bar.note()) + "</tspan>"));
            }
            y += plotH + 48;
        }
        return b.append("</svg>\n").toString();
    }

    /** 1, 2 or 5 times a power of ten, giving 3 to 7 ticks up to {@code max}. */
    static double niceStep(double max) {
        double raw = max / 5;
        double p = Math.pow(10, Math.floor(Math.log10(raw)));
        double f = raw / p;
        return (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * p;
    }

    private static String plain(double v, double step) {
        if (step >= 1) return String.format(Locale.ROOT, "%.0f", v);
        int decimals = (int) Math.ceil(-Math.log10(step) - 1e-9);
        return String.format(Locale.ROOT, "%." + decimals + "f", v);
    }

    // ------------------------------------------------------------------------------------------ primitives

    private static StringBuilder header(int w, int h, String title, String subtitle) {
        StringBuilder b = new StringBuilder();
        b.append(String.format(Locale.ROOT, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
                + "font-family=\"DejaVu Sans, Helvetica, Arial, sans-serif\">\n", w, h, w, h));
        b.append(String.format(Locale.ROOT, "<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" fill=\"#ffffff\"/>\n", w, h));
        text(b, 20, 26, "start", 17, "#111", title, true);
        if (subtitle != null && !subtitle.isEmpty()) text(b, 20, 46, "start", 12, "#555", subtitle);
        return b;
    }

    private static void marker(StringBuilder b, int shape, double x, double y, String color, boolean hollow) {
        String style = hollow ? String.format("fill=\"#ffffff\" stroke=\"%s\" stroke-width=\"1.6\"", color)
                : String.format("fill=\"%s\" stroke=\"%s\" stroke-width=\"1\"", color, color);
        double r = 4.2;
        switch (shape % 5) {
            case 0:
                b.append(String.format(Locale.ROOT, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"%.1f\" %s/>\n", x, y, r, style));
                break;
            case 1:
                b.append(String.format(Locale.ROOT, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" %s/>\n", x - r, y - r, 2 * r, 2 * r, style));
                break;
            case 2:
                b.append(String.format(Locale.ROOT, "<path d=\"M%.1f %.1f L%.1f %.1f L%.1f %.1f Z\" %s/>\n", x, y - r - 1, x + r + 0.8, y + r - 0.5,
                        x - r - 0.8, y + r - 0.5, style));
                break;
            case 3:
                b.append(String.format(Locale.ROOT, "<path d=\"M%.1f %.1f L%.1f %.1f L%.1f %.1f L%.1f %.1f Z\" %s/>\n", x, y - r - 1, x + r + 1, y,
                        x, y + r + 1, x - r - 1, y, style));
                break;
            default:
                b.append(String.format(Locale.ROOT, "<path d=\"M%.1f %.1f L%.1f %.1f M%.1f %.1f L%.1f %.1f\" stroke=\"%s\" stroke-width=\"2.2\"/>\n",
                        x - r, y - r, x + r, y + r, x - r, y + r, x + r, y - r, color));
        }
    }

    private static void line(StringBuilder b, double x1, double y1, double x2, double y2, String color, double width, String opacity) {
        b.append(String.format(Locale.ROOT, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" stroke-width=\"%.1f\"%s/>\n",
                x1, y1, x2, y2, color, width, opacity == null ? "" : " stroke-opacity=\"" + opacity + "\""));
    }

    private static void rect(StringBuilder b, double x, double y, double w, double h, String fill, String stroke) {
        b.append(String.format(Locale.ROOT, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\"%s/>\n", x, y, w, h, fill,
                stroke == null ? "" : " stroke=\"" + stroke + "\""));
    }

    private static void text(StringBuilder b, double x, double y, String anchor, int size, String color, String s) {
        text(b, x, y, anchor, size, color, s, false);
    }

    private static void text(StringBuilder b, double x, double y, String anchor, int size, String color, String s, boolean bold) {
        b.append(String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\" font-size=\"%d\" fill=\"%s\"%s>%s</text>\n",
                x, y, anchor, size, color, bold ? " font-weight=\"bold\"" : "", esc(s)));
    }

    static String esc(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
    }

    // ------------------------------------------------------------------------------------------ tick labels

    /** 1 B, 64 B, 1 KiB, 64 KiB, 8 MiB. */
    public static String bytes(double v) {
        long b = Math.round(v);
        if (b >= (1L << 20) && b % (1L << 20) == 0) return (b >> 20) + " MiB";
        if (b >= 1024 && b % 1024 == 0) return (b >> 10) + " KiB";
        return b + " B";
    }

    /** A time in microseconds as "10 µs", "1 ms", "100 ms", "1 s". */
    public static String micros(double us) {
        if (us >= 1e6) return trim(us / 1e6) + " s";
        if (us >= 1e3) return trim(us / 1e3) + " ms";
        if (us >= 1) return trim(us) + " µs";
        return trim(us * 1e3) + " ns";
    }

    /** A rate in Mbit/s as "10 Mbit/s", "1 Gbit/s", "100 kbit/s". */
    public static String mbits(double mbps) {
        if (mbps >= 1e3) return trim(mbps / 1e3) + " Gbit/s";
        if (mbps >= 1) return trim(mbps) + " Mbit/s";
        return trim(mbps * 1e3) + " kbit/s";
    }

    private static String trim(double v) {
        String s = String.format(Locale.ROOT, "%.3g", v);
        if (s.contains("e")) return s;
        if (s.contains(".")) s = s.replaceFirst("0+$", "").replaceFirst("\\.$", "");
        return s;
    }
}
