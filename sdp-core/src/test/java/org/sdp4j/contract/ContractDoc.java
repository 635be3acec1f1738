package org.sdp4j.contract;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import org.opentest4j.AssertionFailedError;

/**
 * The limitations table of docs/transport-contract.md, read from the source tree: a row is
 * {@code | key | behaviour | transports | why | what a program sees |}, transports separated by commas.
 */
public final class ContractDoc {
    private ContractDoc() {}

    public static final String DOC = "docs/transport-contract.md";
    private static final Set<String> CHECKED = ConcurrentHashMap.newKeySet();

    /** The doc, found upwards from the working directory (a module directory under surefire, the repo in the VM). */
    public static Path path() {
        for (Path d = Path.of("").toAbsolutePath(); d != null; d = d.getParent()) {
            Path p = d.resolve(DOC);
            if (Files.isRegularFile(p)) {
                return p;
            }
        }
        throw new AssertionFailedError(DOC + " not found above " + Path.of("").toAbsolutePath());
    }

    /** key -> the transports column of its row. */
    public static Map<String, String> rows() {
        List<String> lines;
        try {
            lines = Files.readAllLines(path());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        Map<String, String> rows = new HashMap<>();
        for (String l : lines) {
            String[] cells = l.split("\\|");
            // "| `key` | behaviour | transports | why | sees |" splits into 6 cells, the first empty
            if (cells.length >= 6 && cells[1].trim().matches("`[a-z0-9-]+`")) {
                rows.put(cells[1].trim().replace("`", ""), cells[3].trim());
            }
        }
        return rows;
    }

    /** Fails unless every limitation the fixture declares has a row naming its transport. */
    public static void assertDocumented(Transport t) {
        if (CHECKED.contains(t.name())) {
            return;
        }
        Map<String, String> rows = rows();
        for (Limitation l : t.limitations()) {
            String transports = rows.get(l.key());
            if (transports == null) {
                throw new AssertionFailedError("limitation '" + l.key() + "' of " + t.name() + " has no row in " + DOC);
            }
            if (!List.of(transports.replace("`", "").split("\\s*,\\s*")).contains(t.name())) {
                throw new AssertionFailedError("the row of '" + l.key() + "' in " + DOC + " does not name transport "
                        + t.name() + " (it says: " + transports + ")");
            }
        }
        CHECKED.add(t.name());
    }
}
