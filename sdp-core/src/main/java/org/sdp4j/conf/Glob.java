package org.sdp4j.conf;

/** fnmatch(3) without flags. TODO(conf): brackets, escapes. */
final class Glob {
    private Glob() {}

    static boolean matches(String glob, String s) {
        return match(glob, 0, s, 0);
    }

    private static boolean match(String g, int gi, String s, int si) {
        while (gi < g.length()) {
            char c = g.charAt(gi);
            if (c == '*') {
                for (int k = si; k <= s.length(); k++) {
                    if (match(g, gi + 1, s, k)) {
                        return true;
                    }
                }
                return false;
            }
            if (si >= s.length() || (c != '?' && c != s.charAt(si))) {
                return false;
            }
            gi++;
            si++;
        }
        return si == s.length();
    }
}
