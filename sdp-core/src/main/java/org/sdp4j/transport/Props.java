package org.sdp4j.transport;

import org.sdp4j.log.SdpLog;

/**
 * sdp4j's {@code -Dsdp4j.*} tunables, read one way everywhere: a missing or blank value is the default, a value that
 * does not parse or is below the minimum is logged at error level (naming the property) and replaced by the default,
 * so a typo never stops a program nor silently means something else.
 */
public final class Props {
    private Props() {
    }

    public static int intProperty(String name, int dflt, int min) {
        return (int) longProperty(name, dflt, min, Integer.MAX_VALUE);
    }

    public static long longProperty(String name, long dflt, long min) {
        return longProperty(name, dflt, min, Long.MAX_VALUE);
    }

    public static long longProperty(String name, long dflt, long min, long max) {
        String v = System.getProperty(name);
        if (v == null || v.isBlank()) {
            return dflt;
        }
        try {
            long n = Long.parseLong(v.trim());
            if (n >= min && n <= max) {
                return n;
            }
        } catch (NumberFormatException ignore) {
            // reported below
        }
        SdpLog.log(SdpLog.ERROR, "-D" + name + "=" + v + ": expected an integer in [" + min + ", " + max
                + "]; using " + dflt);
        return dflt;
    }

    public static boolean booleanProperty(String name) {
        return Boolean.parseBoolean(System.getProperty(name, "false").trim());
    }
}
