package org.sdp4j.ucx;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A local connection's busy-poll takes one of a process's {@code sdp4j.ucx.spinners} places (UcxWait.await); a place
 * never given back would stop every later spin of the process. In a JVM of its own whose waits spin 100 ms
 * ({@code sdp4j.ucx.poll}) without the load bound ({@code sdp4j.spin.policy=false}: they spin however busy the
 * machine is), waits end while spinning by data, a read timeout, the peer's close and a close by another thread.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class UcxSpinPlacesTest {

    @Test
    void everyWayAWaitEndsGivesItsSpinPlaceBack() throws Exception {
        Process p = new ProcessBuilder(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--add-opens", "java.base/java.net=ALL-UNNAMED", "--add-exports", "java.base/sun.nio.ch=ALL-UNNAMED",
                "--add-opens", "java.base/sun.nio.ch=ALL-UNNAMED", "-Dsdp4j.spin.policy=false",
                "-Dsdp4j.ucx.poll=100000", "-Dsdp4j.ucx.spinners=1", "-cp",
                System.getProperty("surefire.test.class.path", System.getProperty("java.class.path")),
                SpinPlacesPeer.class.getName())).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, p.waitFor(), out); // a hung peer fails by the class @Timeout
        assertFalse(out.contains("FAILED"), out);
        Matcher seen = Pattern.compile("SEEN (\\d+)").matcher(out), left = Pattern.compile("LEFT (\\d+)").matcher(out);
        assertTrue(seen.find() && left.find(), out);
        assertTrue(Integer.parseInt(seen.group(1)) > 0, () -> "no wait spun, so nothing was tested: " + out);
        assertEquals(0, Integer.parseInt(left.group(1)), () -> "spin places never given back: " + out);
    }
}
