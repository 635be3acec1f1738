package org.sdp4j.conf;

/**
 * The words of one libsdp.conf line. libsdp's flex scanner (config_scanner.l) is mirrored where it is precise and
 * made stricter where it is sloppy:
 * <ul>
 * <li>blanks are spaces and tabs ({@code [ \t]+}); every other control character is an error here, as it is a
 * syntax error there (a CR of a DOS line ending included);</li>
 * <li>{@code #} starts a comment that runs to the end of the line, also right after a word ({@code *:*#c});</li>
 * <li>in a name position (PROGRAM, the log file NAME) libsdp's {@code <CANNAME>[^ \t\n]+} keeps a {@code #} inside
 * the name, where a reader sees a comment; the caller refuses such names;</li>
 * <li>words must be separated by blanks: libsdp would read {@code usesdp} as {@code use sdp}, sdp4j does not.</li>
 * </ul>
 */
final class LineScanner {
    private final String source;
    private final int lineNo;
    private final String line;
    private int pos;
    private int statementStart = -1;
    private int statementEnd;

    LineScanner(String source, int lineNo, String line) {
        this.source = source;
        this.lineNo = lineNo;
        this.line = line;
    }

    /**
     * The next blank-separated word, or null at the end of the line or at a comment.
     *
     * @param name a name position: the word runs to the next blank, {@code #} included
     */
    String word(boolean name) throws ConfigException {
        while (pos < line.length() && isBlank(line.charAt(pos))) {
            pos++;
        }
        if (pos >= line.length() || line.charAt(pos) == '#') {
            return null;
        }
        int start = pos;
        while (pos < line.length()) {
            char c = line.charAt(pos);
            if (isBlank(c) || (!name && c == '#')) {
                break;
            }
            check(c, pos);
            pos++;
        }
        if (statementStart < 0) {
            statementStart = start;
        }
        statementEnd = pos;
        return line.substring(start, pos);
    }

    /** The statement as written: from its first word to its last, without the comment. */
    String statementText() {
        return statementStart < 0 ? "" : line.substring(statementStart, statementEnd);
    }

    ConfigException error(String message) {
        return new ConfigException(source, lineNo, message);
    }

    private void check(char c, int at) throws ConfigException {
        if (c == '\r') {
            throw error("carriage return in a statement: the file has DOS (CRLF) line endings, which libsdp rejects"
                    + " too; convert it with dos2unix");
        }
        if (c == 0) {
            throw error("NUL byte in a statement (is this a binary file?)");
        }
        if (c < 0x20 || c == 0x7f || (c >= 0x80 && c < 0xa0)) {
            throw error(String.format("control character U+%04X in a statement", (int) c));
        }
        if (c == '\uFFFD') {
            throw error("bytes that are not UTF-8 text (or U+FFFD) in a statement");
        }
        if (Character.isSurrogate(c)) {
            boolean paired = Character.isHighSurrogate(c)
                    ? at + 1 < line.length() && Character.isLowSurrogate(line.charAt(at + 1))
                    : at > 0 && Character.isHighSurrogate(line.charAt(at - 1));
            if (!paired) {
                throw error(String.format("unpaired surrogate U+%04X in a statement", (int) c));
            }
        }
    }

    static boolean isBlank(char c) {
        return c == ' ' || c == '\t';
    }

    /** {@code 'word'} for messages: at most 40 characters, anything unprintable or blank-like escaped. */
    static String quote(String word) {
        if (word == null) {
            return "end of line";
        }
        StringBuilder b = new StringBuilder("'");
        int n = 0;
        for (int i = 0; i < word.length() && n < 40; i++, n++) {
            char c = word.charAt(i);
            if (c >= 0x20 && c < 0x7f) {
                b.append(c);
            } else if (Character.isLetterOrDigit(c) && !Character.isSurrogate(c)) {
                b.append(c);
            } else {
                b.append(String.format("\\u%04X", (int) c));
            }
        }
        if (n < word.length()) {
            b.append("...");
        }
        return b.append('\'').toString();
    }
}
