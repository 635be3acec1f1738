package org.sdp4j.boot;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.lang.module.ModuleDescriptor;
import java.lang.module.ModuleFinder;
import java.lang.module.ModuleReader;
import java.lang.module.ModuleReference;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;

/**
 * sdp4j as the named module {@value #NAME}, read straight from the agent jar it sits in: every class and resource
 * of the jar except this boot package and the jar's own metadata, plus sdp-ucx and jucx from {@code sdp4j-ucx/}
 * (the same bytes the class path copy uses; nothing is extracted). The descriptor is built here rather than
 * compiled: the module exports and opens nothing, so no code outside it can reach the JDK internals the agent
 * opens to it, nor sdp4j's classes that use them.
 */
final class AgentJarModule implements ModuleFinder {
    static final String NAME = "org.sdp4j";
    static final String TRANSPORT = "org.sdp4j.transport.Transport";
    private static final String UCX_DIR = "sdp4j-ucx/";
    private static final String BOOT_DIR = AgentJarModule.class.getPackageName().replace('.', '/') + "/";
    private static final String ISOLATED_UCX = "org.sdp4j.agent.IsolatedUcxTransport";
    private static final String UCX = "org.sdp4j.ucx.UcxTransport";
    /** The package of sdp4j's JFR events (org.sdp4j.ops), opened to jdk.jfr alone. */
    private static final String JFR_EVENTS = "org.sdp4j.ops";
    /**
     * Read by sdp4j when the runtime has them: the agent API, jdk.net's extended socket options, JMX and JFR, and
     * jdk.management's count of open file descriptors (sdp-ucx's {@code Descriptors}: without it the ucx transport's
     * descriptor budget saw nothing, and a JVM near its {@code ulimit -n} failed the application's own sockets).
     */
    private static final List<String> OPTIONAL_REQUIRES = List.of("java.instrument", "jdk.net", "java.management",
            "jdk.jfr", "jdk.management");

    private final URI jar;
    private final ZipFile zip;
    private final Map<String, String> entries = new TreeMap<>(); // resource name in the module -> jar entry
    private final ModuleReference reference;

    AgentJarModule(Path jarFile) throws IOException {
        jar = jarFile.toUri();
        zip = new ZipFile(jarFile.toFile());
        Set<String> packages = new TreeSet<>();
        for (Enumeration<? extends ZipEntry> e = zip.entries(); e.hasMoreElements(); ) {
            ZipEntry z = e.nextElement();
            String entry = z.getName();
            if (z.isDirectory() || entry.startsWith(BOOT_DIR) || entry.equals("META-INF/MANIFEST.MF")
                    || entry.startsWith("META-INF/versions/") || entry.endsWith("module-info.class")) {
                continue;
            }
            String name = entry.startsWith(UCX_DIR) ? entry.substring(UCX_DIR.length()) : entry;
            entries.putIfAbsent(name, entry);
            int slash = name.lastIndexOf('/');
            if (name.endsWith(".class") && slash > 0) {
                packages.add(name.substring(0, slash).replace('/', '.'));
            }
        }
        ModuleDescriptor.Builder b = ModuleDescriptor.newModule(NAME).packages(packages);
        for (String m : OPTIONAL_REQUIRES) {
            if (ModuleLayer.boot().findModule(m).isPresent()) {
                b.requires(m);
            }
        }
        if (ModuleLayer.boot().findModule("jdk.jfr").isPresent() && packages.contains(JFR_EVENTS)) {
            b.opens(JFR_EVENTS, java.util.Set.of("jdk.jfr")); // JFR reads and writes the event classes' fields
        }
        List<String> transports = transports();
        b.uses(TRANSPORT);
        if (!transports.isEmpty()) {
            b.provides(TRANSPORT, transports);
        }
        b.provides("java.util.function.Function", List.of("org.sdp4j.agent.LayerEntry"));
        reference = new ModuleReference(b.build(), jar) {
            @Override
            public ModuleReader open() {
                return new Reader();
            }
        };
    }

    /** The class path's service list, with UCX itself in place of the class path's isolating wrapper. */
    private List<String> transports() throws IOException {
        List<String> out = new ArrayList<>();
        String list = entries.get("META-INF/services/" + TRANSPORT);
        if (list == null) {
            return out;
        }
        try (BufferedReader r = new BufferedReader(new InputStreamReader(zip.getInputStream(zip.getEntry(list)),
                StandardCharsets.UTF_8))) {
            for (String line; (line = r.readLine()) != null; ) {
                int hash = line.indexOf('#');
                String cn = (hash >= 0 ? line.substring(0, hash) : line).trim();
                if (cn.equals(ISOLATED_UCX)) {
                    cn = UCX;
                }
                if (!cn.isEmpty() && !out.contains(cn) && entries.containsKey(cn.replace('.', '/') + ".class")) {
                    out.add(cn);
                }
            }
        }
        return out;
    }

    @Override
    public Optional<ModuleReference> find(String name) {
        return NAME.equals(name) ? Optional.of(reference) : Optional.empty();
    }

    @Override
    public Set<ModuleReference> findAll() {
        return Set.of(reference);
    }

    private final class Reader implements ModuleReader {
        @Override
        public Optional<URI> find(String name) {
            String entry = entries.get(name);
            return entry == null ? Optional.empty() : Optional.of(URI.create("jar:" + jar + "!/" + entry));
        }

        @Override
        public Optional<InputStream> open(String name) throws IOException {
            String entry = entries.get(name);
            return entry == null ? Optional.empty() : Optional.of(zip.getInputStream(zip.getEntry(entry)));
        }

        @Override
        public Stream<String> list() {
            return entries.keySet().stream();
        }

        @Override
        public void close() {
            // the jar stays open for the life of the JVM: the layer's loader reads classes from it on demand
        }
    }
}
