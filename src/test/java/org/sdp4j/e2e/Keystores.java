package org.sdp4j.e2e;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** A self-signed PKCS12 keystore for CN=localhost, made with the running JDK's keytool. */
public final class Keystores {
    public static final String PASSWORD = "e2e-secret";

    private Keystores() {}

    public static Path selfSigned(Path dir) throws IOException, InterruptedException {
        Path ks = dir.resolve("probe.p12");
        List<String> cmd = List.of(Path.of(System.getProperty("java.home"), "bin", "keytool").toString(),
                "-genkeypair", "-alias", "probe", "-keyalg", "EC", "-groupname", "secp256r1",
                "-dname", "CN=localhost", "-ext", "SAN=dns:localhost,ip:127.0.0.1", "-validity", "2",
                "-storetype", "PKCS12", "-keystore", ks.toString(), "-storepass", PASSWORD, "-keypass", PASSWORD);
        Path log = dir.resolve("keytool.log");
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0 || !Files.isRegularFile(ks)) {
            p.destroyForcibly();
            throw new AssertionError("keytool failed: " + cmd + "\n" + Files.readString(log));
        }
        return ks;
    }
}
