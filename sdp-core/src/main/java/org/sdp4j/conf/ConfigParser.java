package org.sdp4j.conf;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * The libsdp.conf parser: the grammar of OFED libsdp's config_parser.y and config_scanner.l (libsdp 1.1.x after its
 * "full ipv6 support" change of 2010-12), read line by line because every libsdp statement ends with a newline. Where libsdp
 * accepts something it then misreads (port 70000, {@code /999}, {@code 5-3}, host bits outside the prefix) sdp4j
 * refuses the file instead; docs/libsdp-conf.md lists every such choice.
 * <p>
 * Any problem, whatever the input, is a {@link ConfigException} naming the file and line; nothing is half-applied,
 * so a malformed line can never silently change routing.
 */
public final class ConfigParser {
    /** Words libsdp's scanner always reads as keywords, even where a name is expected. */
    private static final Set<String> KEYWORDS = Set.of("use", "log", "tcp", "sdp", "both", "client", "connect",
            "server", "listen", "destination", "min-level", "stderr", "syslog", "file");

    private ConfigParser() {}

    /** Reads {@code file} as {@link ConfigFile} allows (a regular file, size-bounded, root's rules for root). */
    public static RuleSet parse(Path file) throws ConfigException {
        return parse(file.toString(), decode(ConfigFile.read(file)));
    }

    /**
     * Lines are decoded one by one, malformed bytes becoming U+FFFD: in a comment they do not matter (libsdp never
     * looks at them), in a statement the scanner reports them on the right line.
     */
    private static String decode(byte[] bytes) {
        StringBuilder text = new StringBuilder(bytes.length);
        CharsetDecoder d = StandardCharsets.UTF_8.newDecoder()
                .onMalformedInput(CodingErrorAction.REPLACE)
                .onUnmappableCharacter(CodingErrorAction.REPLACE);
        int start = 0;
        for (int i = 0; i <= bytes.length; i++) {
            if (i == bytes.length || bytes[i] == '\n') {
                try {
                    text.append(d.reset().decode(ByteBuffer.wrap(bytes, start, i - start)));
                } catch (java.nio.charset.CharacterCodingException e) {
                    throw new AssertionError(e); // REPLACE never throws
                }
                if (i < bytes.length) {
                    text.append('\n');
                }
                start = i + 1;
            }
        }
        return text.toString();
    }

    /** @param source the name errors are reported against */
    public static RuleSet parse(String source, String text) throws ConfigException {
        String src = source == null ? "<unnamed>" : source;
        if (text == null) {
            throw new ConfigException(src, 0, "no text to parse");
        }
        List<Rule> rules = new ArrayList<>();
        LogMerge log = new LogMerge();
        int lineNo = 0;
        Tunables pending = null; // from #sdp4j: directives, for the next use statement
        int pendingLine = 0;
        try {
            int start = 0;
            while (true) {
                int nl = text.indexOf('\n', start);
                int end = nl < 0 ? text.length() : nl;
                lineNo++;
                String line = text.substring(start, end);
                Tunables d = directive(src, lineNo, line);
                if (d != null) {
                    if (pending != null) {
                        for (Tunables.Key k : d.values().keySet()) {
                            if (pending.values().containsKey(k)) {
                                throw new ConfigException(src, lineNo, DIRECTIVE + " " + k.word() + " is already set"
                                        + " for the next rule (line " + pendingLine + ")");
                            }
                        }
                        pending = pending.with(d);
                    } else {
                        pending = d;
                        pendingLine = lineNo;
                    }
                } else {
                    int before = rules.size();
                    parseLine(new LineScanner(src, lineNo, line), lineNo, rules, log);
                    if (pending != null && rules.size() > before) {
                        Rule r = rules.get(before);
                        if (r.family() != Family.SDP && r.family() != Family.BOTH) {
                            throw new ConfigException(src, pendingLine, DIRECTIVE + " line " + pendingLine
                                    + " sets rsocket tunables for line " + lineNo + ", a 'use " + r.family().keyword()
                                    + "' rule that never uses rsockets");
                        }
                        rules.set(before, r.withTunables(pending));
                        pending = null;
                    }
                }
                if (nl < 0) {
                    break;
                }
                start = nl + 1;
            }
            if (pending != null) {
                throw new ConfigException(src, pendingLine, DIRECTIVE + " directive without a use statement after it"
                        + " (it applies to the next rule)");
            }
        } catch (RuntimeException e) {
            // A bug here must still surface as "this file is unusable", never as a stack trace in premain.
            throw new ConfigException(src, lineNo, "internal error while parsing: " + e);
        }
        return new RuleSet(src, rules, log.result());
    }

    /** The prefix of an sdp4j directive: a comment to libsdp, which ignores everything after '#'. */
    static final String DIRECTIVE = "#sdp4j:";

    /**
     * An sdp4j directive line, {@code #sdp4j: [rsocket] KEY=VALUE ...} (leading blanks allowed), giving the next
     * {@code use} rule its rsocket tunables; null when the line is anything else. libsdp reads the line as a comment,
     * so a file with directives means to libsdp exactly what it means without them.
     */
    static Tunables directive(String src, int lineNo, String line) throws ConfigException {
        int i = 0;
        while (i < line.length() && (line.charAt(i) == ' ' || line.charAt(i) == '\t')) {
            i++;
        }
        if (!line.startsWith(DIRECTIVE, i)) {
            return null;
        }
        String body = line.substring(i + DIRECTIVE.length()).strip();
        String[] words = body.isEmpty() ? new String[0] : body.split("[ \t]+");
        java.util.EnumMap<Tunables.Key, Integer> m = new java.util.EnumMap<>(Tunables.Key.class);
        int w = 0;
        if (words.length > 0 && words[0].equals("rsocket")) {
            w = 1;
        }
        if (w == words.length) {
            throw new ConfigException(src, lineNo, DIRECTIVE + " expected KEY=VALUE after it (keys: "
                    + Tunables.Key.names() + "), e.g. #sdp4j: rsocket sqsize=1024 inline=256");
        }
        for (; w < words.length; w++) {
            String word = words[w];
            if (word.startsWith("#")) {
                break; // a comment after the directive
            }
            int eq = word.indexOf('=');
            if (eq <= 0) {
                throw new ConfigException(src, lineNo, DIRECTIVE + " expected KEY=VALUE, found " + quote(word)
                        + " (keys: " + Tunables.Key.names() + ")");
            }
            String key = word.substring(0, eq);
            Tunables.Key k = Tunables.Key.of(key);
            if (k == null) {
                throw new ConfigException(src, lineNo, DIRECTIVE + " unknown tunable " + quote(key) + " (known: "
                        + Tunables.Key.names() + ")");
            }
            if (m.containsKey(k)) {
                throw new ConfigException(src, lineNo, DIRECTIVE + " " + key + " given twice");
            }
            Object v = Tunables.parseValue(k, word.substring(eq + 1));
            if (!(v instanceof Integer)) {
                throw new ConfigException(src, lineNo, DIRECTIVE + " " + v);
            }
            m.put(k, (Integer) v);
        }
        if (m.isEmpty()) {
            throw new ConfigException(src, lineNo, DIRECTIVE + " expected KEY=VALUE (keys: " + Tunables.Key.names()
                    + ")");
        }
        return Tunables.of(m);
    }

    private static void parseLine(LineScanner in, int lineNo, List<Rule> rules, LogMerge log)
            throws ConfigException {
        String first = in.word(false);
        if (first == null) {
            return;
        }
        switch (first) {
            case "use" -> rules.add(useStatement(in, lineNo));
            case "log" -> logStatement(in, log);
            default -> {
                String hint = "";
                if (first.equalsIgnoreCase("use") || first.equalsIgnoreCase("log")) {
                    hint = " (keywords are lower case, as in libsdp)";
                } else if (KEYWORDS.contains(first)) {
                    hint = " (a rule starts with 'use', e.g. use sdp client * *:*)";
                }
                throw in.error("expected 'use' or 'log' at the start of a statement, found " + quote(first) + hint);
            }
        }
    }

    // use FAMILY ROLE PROGRAM ADDRESS[/PREFIX]:PORTS

    private static Rule useStatement(LineScanner in, int lineNo) throws ConfigException {
        String fam = in.word(false);
        Family family = switch (fam == null ? "" : fam) {
            case "sdp" -> Family.SDP;
            case "tcp" -> Family.TCP;
            case "both" -> Family.BOTH;
            // not in KEYWORDS: libsdp reads 'ucx' as a name, so a program called ucx still parses as before
            case "ucx" -> Family.UCX;
            case "smc" -> Family.SMC; // the same: not a libsdp keyword
            default -> throw in.error("expected sdp, tcp, both, ucx or smc after 'use', found " + quote(fam)
                    + caseHint(fam, "sdp", "tcp", "both", "ucx", "smc"));
        };
        String roleWord = in.word(false);
        Role role = switch (roleWord == null ? "" : roleWord) {
            case "server", "listen" -> Role.SERVER;
            case "client", "connect" -> Role.CLIENT;
            default -> throw in.error("expected server, listen, client or connect after 'use " + fam + "', found "
                    + quote(roleWord) + caseHint(roleWord, "server", "listen", "client", "connect"));
        };
        String program = in.word(true);
        if (program == null) {
            throw in.error("expected a program name or * after '" + roleWord + "', found end of line");
        }
        checkName(in, "program name", program);
        String globProblem = Glob.problem(program);
        if (globProblem != null) {
            throw in.error("program pattern " + quote(program) + ": " + globProblem);
        }
        String target = in.word(false);
        if (target == null) {
            String hint = program.indexOf(':') >= 0
                    ? " (is the program missing? write * for every program: use " + fam + " " + roleWord + " * "
                    + program + ")"
                    : " (e.g. *:* or 10.0.0.0/8:5000)";
            throw in.error("expected ADDRESS:PORTS after the program name " + quote(program) + ", found end of line"
                    + hint);
        }
        TargetParser.Target t = TargetParser.parse(in, target);
        String extra = in.word(false);
        if (extra != null) {
            String hint = extra.startsWith(":") || extra.startsWith("-") || target.endsWith(":")
                    || target.endsWith("-")
                    ? " (write ADDRESS:PORTS as one word, without blanks)"
                    : " (a use statement ends after ADDRESS:PORTS; '#' starts a comment)";
            throw in.error("unexpected " + quote(extra) + " after " + quote(target) + hint);
        }
        return new Rule(lineNo, in.statementText(), family, role, program, t.address(), t.portLow(), t.portHigh());
    }

    // log [min-level N] [destination stderr|syslog|file NAME], in either order, at least one

    private static void logStatement(LineScanner in, LogMerge log) throws ConfigException {
        int level = 0;
        LogSettings.Destination dest = null;
        String file = null;
        String w;
        boolean any = false;
        while ((w = in.word(false)) != null) {
            any = true;
            switch (w) {
                case "min-level" -> {
                    if (level != 0) {
                        throw in.error("min-level given twice in one log statement");
                    }
                    level = level(in, in.word(false));
                }
                case "destination" -> {
                    if (dest != null) {
                        throw in.error("destination given twice in one log statement");
                    }
                    String d = in.word(false);
                    switch (d == null ? "" : d) {
                        case "stderr" -> dest = LogSettings.Destination.STDERR;
                        case "syslog" -> dest = LogSettings.Destination.SYSLOG;
                        case "file" -> {
                            file = in.word(true);
                            if (file == null) {
                                throw in.error("expected a file name after 'destination file', found end of line");
                            }
                            checkName(in, "log file name", file);
                            dest = LogSettings.Destination.FILE;
                        }
                        default -> throw in.error("expected stderr, syslog or file after 'destination', found "
                                + quote(d) + caseHint(d, "stderr", "syslog", "file"));
                    }
                }
                default -> throw in.error("expected min-level or destination in a log statement, found " + quote(w)
                        + caseHint(w, "min-level", "destination"));
            }
        }
        if (!any) {
            throw in.error("expected min-level or destination after 'log', found end of line");
        }
        log.add(level, dest, file);
    }

    private static int level(LineScanner in, String v) throws ConfigException {
        if (v == null || v.isEmpty() || !allDigits(v)) {
            throw in.error("expected a level 1-9 after 'min-level', found " + quote(v));
        }
        if (v.length() > 1 && v.charAt(0) == '0') {
            throw in.error("min-level " + quote(v) + " has a leading zero (libsdp reads it as two numbers)");
        }
        if (v.length() > 1 || v.charAt(0) == '0') {
            throw in.error("min-level " + v + " is out of range (1 debug ... 9 errors only)");
        }
        return v.charAt(0) - '0';
    }

    /**
     * libsdp reads a name word with {@code <CANNAME>[^ \t\n]+}, but a keyword or a number of the same length wins
     * the tie (earlier rule), so such a name is a syntax error there; and a '#' inside it is kept, which a reader
     * takes for a comment.
     */
    private static void checkName(LineScanner in, String what, String name) throws ConfigException {
        if (KEYWORDS.contains(name)) {
            throw in.error("a " + what + " cannot be " + quote(name) + ": libsdp reads it as a keyword");
        }
        if (allDigits(name) && (name.length() == 1 || name.charAt(0) != '0')) {
            throw in.error("a " + what + " cannot be the number " + quote(name) + ": libsdp reads it as a number");
        }
        if (name.indexOf('#') >= 0) {
            throw in.error("'#' inside the " + what + " " + quote(name) + " is ambiguous: libsdp keeps it in the"
                    + " name, a reader sees a comment; put a blank before a comment");
        }
    }

    static boolean allDigits(String s) {
        for (int i = 0; i < s.length(); i++) {
            if (s.charAt(i) < '0' || s.charAt(i) > '9') {
                return false;
            }
        }
        return !s.isEmpty();
    }

    private static String caseHint(String found, String... keywords) {
        if (found != null) {
            for (String k : keywords) {
                if (k.equalsIgnoreCase(found)) {
                    return " (keywords are lower case, as in libsdp)";
                }
            }
        }
        return "";
    }

    static String quote(String word) {
        return LineScanner.quote(word);
    }

    /** libsdp applies each log statement as it reads it, so a later one overrides what it sets. */
    private static final class LogMerge {
        private int level;
        private LogSettings.Destination dest;
        private String file;
        private boolean seen;

        void add(int l, LogSettings.Destination d, String f) {
            seen = true;
            if (l != 0) {
                level = l;
            }
            if (d != null) {
                dest = d;
                file = f;
            }
        }

        LogSettings result() {
            return seen ? new LogSettings(level, dest, file) : null;
        }
    }
}
