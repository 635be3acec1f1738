package org.sdp4j.agent;

import java.util.Locale;

import org.sdp4j.conf.LogSettings;

/**
 * The {@code -javaagent:sdp4j-agent.jar=OPTIONS} string: comma-separated {@code key=value} pairs.
 * <pre>
 *   conf=PATH         the libsdp.conf to use (before sdp4j.conf, LIBSDP_CONFIG_FILE, /etc/libsdp.conf)
 *   log=SPEC          overrides the file's log statement: LEVEL[:stderr|:syslog|:file:PATH]
 *   onerror=fail|tcp  a malformed config: refuse to start (default) or run everything on TCP, loudly
 *   program=NAME      the program id rules match (same as -Dsdp4j.program=NAME)
 *   netty=native|nio  Netty's native transports (epoll, io_uring, kqueue) create sockets in JNI of their own, out
 *                     of the rules' reach: left alone and reported (native, the default), or turned off so that
 *                     Netty uses NIO and its sockets follow the rules (nio: -Dio.netty.transport.noNative=true)
 * </pre>
 */
public record AgentOptions(String conf, LogSettings log, boolean tcpOnError, String program, boolean nettyNio) {

    public static AgentOptions parse(String args) {
        String conf = null, program = null;
        LogSettings log = null;
        boolean tcpOnError = false, nettyNio = false;
        if (args == null || args.isBlank()) {
            return new AgentOptions(null, null, false, null, false);
        }
        // A file path may contain commas only if it is the last option: conf= takes the rest when it does not
        // look like another key=value.
        for (String part : splitOptions(args)) {
            int eq = part.indexOf('=');
            if (eq <= 0) {
                throw new IllegalArgumentException("sdp4j agent option '" + part + "': expected key=value"
                        + " (conf=, log=, onerror=, program=, netty=)");
            }
            String key = part.substring(0, eq).trim().toLowerCase(Locale.ROOT);
            String value = part.substring(eq + 1).trim();
            switch (key) {
                case "conf" -> conf = requireValue(key, value);
                case "log" -> log = LogSettings.parseOption(requireValue(key, value));
                case "program" -> program = requireValue(key, value);
                case "onerror" -> {
                    switch (value.toLowerCase(Locale.ROOT)) {
                        case "fail" -> tcpOnError = false;
                        case "tcp" -> tcpOnError = true;
                        default -> throw new IllegalArgumentException(
                                "sdp4j agent option 'onerror=" + value + "': expected fail or tcp");
                    }
                }
                case "netty" -> {
                    switch (value.toLowerCase(Locale.ROOT)) {
                        case "native" -> nettyNio = false;
                        case "nio" -> nettyNio = true;
                        default -> throw new IllegalArgumentException(
                                "sdp4j agent option 'netty=" + value + "': expected native or nio");
                    }
                }
                default -> throw new IllegalArgumentException("sdp4j agent option '" + key
                        + "': unknown (known: conf, log, onerror, program, netty)");
            }
        }
        return new AgentOptions(conf, log, tcpOnError, program, nettyNio);
    }

    private static String requireValue(String key, String value) {
        if (value.isEmpty()) {
            throw new IllegalArgumentException("sdp4j agent option '" + key + "=': value missing");
        }
        return value;
    }

    private static java.util.List<String> splitOptions(String args) {
        java.util.List<String> out = new java.util.ArrayList<>();
        int start = 0;
        for (int i = 0; i <= args.length(); i++) {
            if (i == args.length() || args.charAt(i) == ',') {
                String piece = args.substring(start, i);
                // "conf=/a,b.conf": a piece without '=' continues the previous conf= value
                if (!piece.contains("=") && !out.isEmpty() && out.get(out.size() - 1).startsWith("conf=")) {
                    out.set(out.size() - 1, out.get(out.size() - 1) + "," + piece);
                } else if (!piece.isBlank()) {
                    out.add(piece);
                }
                start = i + 1;
            }
        }
        return out;
    }
}
