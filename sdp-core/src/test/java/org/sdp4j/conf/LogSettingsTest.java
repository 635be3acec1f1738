package org.sdp4j.conf;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** The agent's log=LEVEL[:stderr|:syslog|:file:PATH] option. */
class LogSettingsTest {

    @Test
    void forms() {
        assertEquals(new LogSettings(7, null, null), LogSettings.parseOption("7"));
        assertEquals(new LogSettings(1, LogSettings.Destination.STDERR, null), LogSettings.parseOption("1:stderr"));
        assertEquals(new LogSettings(9, LogSettings.Destination.SYSLOG, null), LogSettings.parseOption("9:syslog"));
        assertEquals(new LogSettings(4, LogSettings.Destination.FILE, "/var/tmp/sdp4j.log"),
                LogSettings.parseOption("4:file:/var/tmp/sdp4j.log"));
        assertEquals(new LogSettings(4, LogSettings.Destination.FILE, "C:odd:name"),
                LogSettings.parseOption("4:file:C:odd:name"));
        assertEquals(new LogSettings(5, LogSettings.Destination.STDERR, null), LogSettings.parseOption(" 5:STDERR "));
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "0             | level '0' is not 1-9",
            "10            | level '10' is not 1-9",
            "x:stderr      | level 'x' is not 1-9",
            ":stderr       | level '' is not 1-9",
            "7:console     | destination 'console' is not stderr, syslog or file",
            "7:            | destination '' is not stderr, syslog or file",
            "7:file        | 'file' needs a path",
            "7:file:       | 'file' needs a path",
            "7:stderr:x    | nothing may follow 'stderr'",
            "7:syslog:host | nothing may follow 'syslog'"})
    void errorsNameWhatWasWrong(String spec, String fragment) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> LogSettings.parseOption(spec));
        assertTrue(e.getMessage().contains(fragment), e.getMessage());
        assertTrue(e.getMessage().startsWith("log=" + spec), e.getMessage());
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "  "})
    void emptyIsAnError(String spec) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> LogSettings.parseOption(spec));
        assertTrue(e.getMessage().startsWith("log= option is empty; expected LEVEL[:stderr|:syslog|:file:PATH]"));
        assertThrows(IllegalArgumentException.class, () -> LogSettings.parseOption(null));
    }
}
