package org.sdp4j.conf;

import java.util.ArrayList;
import java.util.List;

/**
 * fnmatch(3) with flags 0, as libsdp's {@code match_program_name()} calls it: {@code *} and {@code ?} match any
 * character including {@code /} and a leading {@code .}; {@code [...]} bracket expressions with ranges, {@code !} or
 * {@code ^} negation and {@code [:class:]} names; a backslash makes the next character literal, also inside brackets.
 * Where glibc is lenient (an unterminated {@code [} matches itself) {@link #matches} is lenient too, and
 * {@link #problem} reports it so the parser can refuse such a rule.
 * <p>
 * Matching is iterative (last-star backtracking), so no pattern can make it take exponential time.
 */
final class Glob {
    private static final Object STAR = "*", ANY = "?", NEVER = "never";

    /** Each element: STAR, ANY, NEVER, an Integer code point, or a Bracket. */
    private final Object[] parts;

    private Glob(Object[] parts) {
        this.parts = parts;
    }

    static boolean matches(String glob, String s) {
        return compile(glob).matches(s);
    }

    boolean matches(String s) {
        int[] t = s.codePoints().toArray();
        int p = 0, i = 0, starP = -1, starI = -1;
        while (i < t.length) {
            if (p < parts.length && parts[p] == STAR) {
                starP = p++;
                starI = i;
            } else if (p < parts.length && matchOne(parts[p], t[i])) {
                p++;
                i++;
            } else if (starP >= 0) {
                p = starP + 1;
                i = ++starI;
            } else {
                return false;
            }
        }
        while (p < parts.length && parts[p] == STAR) {
            p++;
        }
        return p == parts.length;
    }

    private static boolean matchOne(Object part, int c) {
        if (part == ANY) {
            return true;
        }
        if (part instanceof Integer lit) {
            return lit == c;
        }
        if (part instanceof Bracket b) {
            return b.matches(c);
        }
        return false; // NEVER
    }

    static Glob compile(String glob) {
        int[] p = glob.codePoints().toArray();
        List<Object> out = new ArrayList<>();
        for (int i = 0; i < p.length; i++) {
            int c = p[i];
            if (c == '*') {
                if (out.isEmpty() || out.get(out.size() - 1) != STAR) {
                    out.add(STAR);
                }
            } else if (c == '?') {
                out.add(ANY);
            } else if (c == '\\') {
                // glibc: "Trailing \ loses."
                out.add(i + 1 < p.length ? (Object) p[++i] : NEVER);
            } else if (c == '[') {
                Parsed b = Bracket.parse(p, i + 1);
                if (b == null) {
                    out.add(c);
                } else {
                    out.add(b.bracket);
                    i = b.end - 1;
                }
            } else {
                out.add(c);
            }
        }
        return new Glob(out.toArray());
    }

    /** Why libsdp's fnmatch would not read {@code glob} the way its author meant, or null when it is fine. */
    static String problem(String glob) {
        int[] p = glob.codePoints().toArray();
        for (int i = 0; i < p.length; i++) {
            int c = p[i];
            if (c == '\\') {
                if (i + 1 >= p.length) {
                    return "ends with a lone backslash, which fnmatch never matches";
                }
                i++;
            } else if (c == '[') {
                Parsed b = Bracket.parse(p, i + 1);
                if (b == null) {
                    return "unterminated [ (write \\[ for a literal [)";
                }
                if (b.problem != null) {
                    return b.problem;
                }
                i = b.end - 1;
            }
        }
        return null;
    }

    private record Parsed(Bracket bracket, int end, String problem) {}

    private static final class Bracket {
        private final boolean negate;
        private final List<int[]> ranges = new ArrayList<>();
        private final List<String> classes = new ArrayList<>();

        private Bracket(boolean negate) {
            this.negate = negate;
        }

        boolean matches(int c) {
            boolean in = false;
            for (int[] r : ranges) {
                if (c >= r[0] && c <= r[1]) {
                    in = true;
                    break;
                }
            }
            if (!in) {
                for (String cls : classes) {
                    if (inClass(cls, c)) {
                        in = true;
                        break;
                    }
                }
            }
            return in != negate;
        }

        /** @param j index just after '['; null when there is no closing ']' */
        static Parsed parse(int[] p, int j) {
            boolean negate = j < p.length && (p[j] == '!' || p[j] == '^');
            if (negate) {
                j++;
            }
            Bracket b = new Bracket(negate);
            String problem = null;
            boolean first = true;
            while (true) {
                if (j >= p.length) {
                    return null;
                }
                int c = p[j];
                if (c == ']' && !first) {
                    return new Parsed(b, j + 1, problem);
                }
                first = false;
                if (c == '[' && j + 1 < p.length && (p[j + 1] == ':' || p[j + 1] == '.' || p[j + 1] == '=')) {
                    int kind = p[j + 1];
                    int close = findClose(p, j + 2, kind);
                    if (close >= 0) {
                        String name = new String(p, j + 2, close - (j + 2));
                        if (kind == ':') {
                            if (!isClass(name)) {
                                problem = problem != null ? problem : "unknown character class [:" + name + ":]";
                            }
                            b.classes.add(name);
                        } else if (name.codePointCount(0, name.length()) == 1) {
                            int cp = name.codePointAt(0);
                            b.ranges.add(new int[] {cp, cp});
                        } else {
                            problem = problem != null ? problem : "unsupported [" + (char) kind + name + (char) kind
                                    + "] (only single characters)";
                        }
                        j = close + 2;
                        continue;
                    }
                }
                int lo;
                if (c == '\\') {
                    if (++j >= p.length) {
                        return null;
                    }
                    lo = p[j];
                } else {
                    lo = c;
                }
                j++;
                if (j + 1 < p.length && p[j] == '-' && p[j + 1] != ']') {
                    int k = j + 1;
                    int hi = p[k];
                    if (hi == '\\') {
                        if (++k >= p.length) {
                            return null;
                        }
                        hi = p[k];
                    }
                    if (hi < lo && problem == null) {
                        problem = "range " + new String(Character.toChars(lo)) + "-" + new String(Character.toChars(hi))
                                + " is backwards and matches nothing";
                    }
                    b.ranges.add(new int[] {lo, hi});
                    j = k + 1;
                } else {
                    b.ranges.add(new int[] {lo, lo});
                }
            }
        }

        private static int findClose(int[] p, int from, int kind) {
            for (int k = from; k + 1 < p.length; k++) {
                if (p[k] == kind && p[k + 1] == ']') {
                    return k;
                }
            }
            return -1;
        }
    }

    private static boolean isClass(String name) {
        switch (name) {
            case "alnum", "alpha", "blank", "cntrl", "digit", "graph", "lower", "print", "punct", "space", "upper",
                 "xdigit" -> {
                return true;
            }
            default -> {
                return false;
            }
        }
    }

    /** POSIX classes in the C locale (a JVM's libsdp-era program names are ASCII). */
    private static boolean inClass(String name, int c) {
        if (c > 0x7f) {
            return false;
        }
        return switch (name) {
            case "alnum" -> Character.isLetterOrDigit(c);
            case "alpha" -> Character.isLetter(c);
            case "blank" -> c == ' ' || c == '\t';
            case "cntrl" -> c < 0x20 || c == 0x7f;
            case "digit" -> c >= '0' && c <= '9';
            case "graph" -> c > 0x20 && c < 0x7f;
            case "lower" -> c >= 'a' && c <= 'z';
            case "print" -> c >= 0x20 && c < 0x7f;
            case "punct" -> c > 0x20 && c < 0x7f && !Character.isLetterOrDigit(c);
            case "space" -> c == ' ' || (c >= '\t' && c <= '\r');
            case "upper" -> c >= 'A' && c <= 'Z';
            case "xdigit" -> (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
            default -> false;
        };
    }
}
