package org.sdp4j.conf;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.function.Function;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Discovery order: conf= option, -Dsdp4j.conf, LIBSDP_CONFIG_FILE, /etc/libsdp.conf. */
class LocatorTest {
    @TempDir
    Path dir;

    private Path file(String name, String text) throws Exception {
        return Files.writeString(dir.resolve(name), text);
    }

    private static Function<String, String> map(String key, Object value) {
        return Map.of(key, String.valueOf(value))::get;
    }

    private static final Function<String, String> NONE = k -> null;

    @Test
    void explicitPathWinsOverEverything() throws Exception {
        Path a = file("a.conf", "use sdp client * *:*\n");
        Path b = file("b.conf", "use tcp client * *:*\nuse tcp server * *:*\n");
        Path def = file("default.conf", "");
        RuleSet set = ConfigLocator.load(a.toString(), map("sdp4j.conf", b), map("LIBSDP_CONFIG_FILE", b), def);
        assertEquals(a.toString(), set.source());
        assertEquals(1, set.rules().size());
    }

    @Test
    void systemPropertyBeforeEnvironment() throws Exception {
        Path a = file("a.conf", "use sdp client * *:*\n");
        Path b = file("b.conf", "use tcp client * *:*\n");
        RuleSet set = ConfigLocator.load(null, map("sdp4j.conf", a), map("LIBSDP_CONFIG_FILE", b), dir.resolve("x"));
        assertEquals(a.toString(), set.source());
    }

    @Test
    void environmentBeforeDefault() throws Exception {
        Path b = file("b.conf", "use tcp client * *:*\n");
        Path def = file("default.conf", "use sdp client * *:*\n");
        RuleSet set = ConfigLocator.load(null, NONE, map("LIBSDP_CONFIG_FILE", b), def);
        assertEquals(b.toString(), set.source());
        assertEquals(Family.TCP, set.rules().get(0).family());
    }

    @Test
    void defaultFileWhenNothingIsNamed() throws Exception {
        Path def = file("libsdp.conf", "use sdp client * *:*\n");
        RuleSet set = ConfigLocator.load(null, NONE, NONE, def);
        assertEquals(def.toString(), set.source());
    }

    @Test
    void missingDefaultFileIsAnEmptyRuleSetNotAnError() throws Exception {
        Path def = dir.resolve("libsdp.conf");
        RuleSet set = ConfigLocator.load(null, NONE, NONE, def);
        assertTrue(set.rules().isEmpty());
        assertTrue(set.source().startsWith("no config file (looked for"), set.source());
        assertTrue(set.source().contains(def.toString()), set.source());
        assertTrue(set.source().contains("LIBSDP_CONFIG_FILE"), set.source());
        assertEquals(Family.SDP, set.defaultFamily(Role.CLIENT)); // libsdp: no rules, "simple SDP"
    }

    @Test
    void realSystemPropertyIsRead() throws Exception {
        Path a = file("prop.conf", "use tcp server * *:*\n");
        String old = System.getProperty("sdp4j.conf");
        System.setProperty("sdp4j.conf", a.toString());
        try {
            assertEquals(a.toString(), ConfigLocator.load(null).source());
        } finally {
            if (old == null) {
                System.clearProperty("sdp4j.conf");
            } else {
                System.setProperty("sdp4j.conf", old);
            }
        }
    }

    @Test
    void namedPathsThatDoNotExistAreErrorsSayingWhoNamedThem() {
        String missing = dir.resolve("missing.conf").toString();
        ConfigException e1 = assertThrows(ConfigException.class,
                () -> ConfigLocator.load(missing, NONE, NONE, dir.resolve("d")));
        assertEquals(missing + ": no such file (named by agent option conf= or check --conf)", e1.getMessage());
        ConfigException e2 = assertThrows(ConfigException.class,
                () -> ConfigLocator.load(null, map("sdp4j.conf", missing), NONE, dir.resolve("d")));
        assertEquals(missing + ": no such file (named by system property sdp4j.conf)", e2.getMessage());
        ConfigException e3 = assertThrows(ConfigException.class,
                () -> ConfigLocator.load(null, NONE, map("LIBSDP_CONFIG_FILE", missing), dir.resolve("d")));
        assertEquals(missing + ": no such file (named by environment variable LIBSDP_CONFIG_FILE)",
                e3.getMessage());
        assertEquals(0, e3.line());
        assertEquals(missing, e3.source());
    }

    @Test
    void emptyOrDirectoryOrUnreadablePathsAreErrors() throws Exception {
        ConfigException empty = assertThrows(ConfigException.class,
                () -> ConfigLocator.load(null, NONE, map("LIBSDP_CONFIG_FILE", ""), dir.resolve("d")));
        assertEquals("environment variable LIBSDP_CONFIG_FILE: is set but empty; it should name a libsdp.conf",
                empty.getMessage());
        ConfigException directory = assertThrows(ConfigException.class,
                () -> ConfigLocator.load(null, map("sdp4j.conf", dir), NONE, dir.resolve("d")));
        assertTrue(directory.getMessage().contains("is a directory, not a libsdp.conf (named by system property"),
                directory.getMessage());
        Path secret = file("secret.conf", "use sdp client * *:*\n");
        if (secret.toFile().setReadable(false, false) && !Files.isReadable(secret)) { // root reads anything
            ConfigException denied = assertThrows(ConfigException.class,
                    () -> ConfigLocator.load(secret.toString(), NONE, NONE, dir.resolve("d")));
            assertTrue(denied.getMessage().contains("permission denied (named by agent option conf= or check --conf)"),
                    denied.getMessage());
        }
    }

    @Test
    void existingButBrokenDefaultFileIsAnError() throws Exception {
        Path def = file("libsdp.conf", "use rdma client * *:*\n");
        ConfigException e = assertThrows(ConfigException.class, () -> ConfigLocator.load(null, NONE, NONE, def));
        assertEquals(def + ":1: expected sdp, tcp, both, ucx or smc after 'use', found 'rdma'", e.getMessage());
        Path dangling = dir.resolve("dangling.conf");
        Files.createSymbolicLink(dangling, dir.resolve("nowhere"));
        ConfigException d = assertThrows(ConfigException.class,
                () -> ConfigLocator.load(null, NONE, NONE, dangling));
        assertTrue(d.getMessage().contains("symbolic link to a file that does not exist"), d.getMessage());
    }

    @Test
    void parseErrorsInANamedFileCarryItsName() throws Exception {
        Path bad = file("bad.conf", "use sdp client * *:*\nuse sdp client * *:70000\n");
        ConfigException e = assertThrows(ConfigException.class,
                () -> ConfigLocator.load(null, NONE, map("LIBSDP_CONFIG_FILE", bad), dir.resolve("d")));
        assertTrue(e.getMessage().startsWith(bad + ":2: port 70000 is out of range"), e.getMessage());
    }
}
