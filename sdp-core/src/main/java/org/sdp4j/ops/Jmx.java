package org.sdp4j.ops;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;

import javax.management.Attribute;
import javax.management.AttributeList;
import javax.management.AttributeNotFoundException;
import javax.management.DynamicMBean;
import javax.management.MBeanAttributeInfo;
import javax.management.MBeanInfo;
import javax.management.MBeanServer;
import javax.management.ObjectName;

import org.sdp4j.conf.Rule;
import org.sdp4j.log.SdpLog;
import org.sdp4j.transport.Router;

/**
 * sdp4j's MBeans in the platform MBean server, domain {@code org.sdp4j} (as Netty and HikariCP name theirs): one
 * {@code org.sdp4j:type=Transport,name=NAME} per transport that decided something, {@code org.sdp4j:type=Rules}
 * with the rules in force, and {@code org.sdp4j:type=Connections} with the open RDMA connections. Read-only. Dynamic MBeans: sdp4j's module exports nothing, so JMX could not introspect a
 * standard MBean interface in it; the attributes are plain numbers, strings and string arrays, readable by
 * JConsole, JMC and the Prometheus JMX exporter without sdp4j's classes.
 */
public final class Jmx {
    public static final String DOMAIN = "org.sdp4j";
    private static final AtomicBoolean RULES = new AtomicBoolean(), CONNECTIONS = new AtomicBoolean();
    private static final boolean AVAILABLE = ModuleLayer.boot().findModule("java.management").isPresent();

    private Jmx() {}

    /** Registers the transport's MBean (once). Never throws: operations must not break a connect. */
    static void register(TransportCounters c) {
        if (!AVAILABLE) {
            return;
        }
        Map<String, Supplier<Object>> a = new java.util.LinkedHashMap<>();
        a.put("Name", c::name);
        a.put("Connects", c::connects);
        a.put("Accepts", c::accepts);
        a.put("Listens", c::listens);
        a.put("Errors", c::errors);
        a.put("Fallbacks", c::fallbacks);
        a.put("Open", c::open);
        a.put("BytesIn", c::bytesIn);
        a.put("BytesOut", c::bytesOut);
        a.put("FallbackReasons", () -> c.fallbackReasons().entrySet().stream()
                .map(e -> e.getKey() + "=" + e.getValue()).toArray(String[]::new));
        a.put("LastFallback", c::lastFallback);
        a.put("LastError", c::lastError);
        register("type=Transport,name=" + c.name(), "sdp4j transport " + c.name(), a);
        registerRules(org.sdp4j.Sdp4j::configuredRouter);
    }

    /** Registers {@code org.sdp4j:type=Connections}: the open connections of the RDMA transports (once). */
    static void registerConnections() {
        if (!AVAILABLE || !CONNECTIONS.compareAndSet(false, true)) {
            return;
        }
        Map<String, Supplier<Object>> a = new java.util.LinkedHashMap<>();
        a.put("Fields", () -> OpenConnections.FIELDS.clone());
        a.put("Open", OpenConnections::lines);
        register("type=Connections", "sdp4j's open RDMA connections, one tab-separated line each (Fields)", a);
    }

    /** Registers {@code org.sdp4j:type=Rules} over the current Router (once; it reads the Router in force). */
    public static void registerRules(Supplier<Router> router) {
        if (!AVAILABLE || !RULES.compareAndSet(false, true)) {
            return;
        }
        Map<String, Supplier<Object>> a = new java.util.LinkedHashMap<>();
        a.put("Source", () -> router.get() == null ? "" : router.get().rules().source());
        a.put("Program", () -> router.get() == null ? "" : router.get().program().toString());
        a.put("Rules", () -> {
            List<String> l = new ArrayList<>();
            Router r = router.get();
            if (r != null) {
                for (Rule rule : r.rules().rules()) {
                    l.add(r.rules().source() + ":" + rule.line() + ": " + rule.text());
                }
            }
            return l.toArray(String[]::new);
        });
        a.put("Unseen", () -> Counters.bypassed().toArray(String[]::new));
        a.put("NegativeCache", () -> router.get() == null ? new String[0]
                : router.get().recentFailures().toArray(String[]::new));
        register("type=Rules", "sdp4j rules in force", a);
    }

    private static void register(String keys, String description, Map<String, Supplier<Object>> attributes) {
        try {
            MBeanServer s = ManagementFactory.getPlatformMBeanServer();
            ObjectName n = new ObjectName(DOMAIN + ":" + keys);
            if (!s.isRegistered(n)) {
                s.registerMBean(new ReadOnly(description, attributes), n);
            }
        } catch (Exception | LinkageError e) {
            SdpLog.log(SdpLog.WARN, "sdp4j: JMX: cannot register " + DOMAIN + ":" + keys + ": " + e);
        }
    }

    /** Attributes read through suppliers; nothing can be set or invoked. */
    private static final class ReadOnly implements DynamicMBean {
        private final Map<String, Supplier<Object>> attributes;
        private final MBeanInfo info;

        ReadOnly(String description, Map<String, Supplier<Object>> attributes) {
            this.attributes = attributes;
            List<MBeanAttributeInfo> infos = new ArrayList<>();
            for (Map.Entry<String, Supplier<Object>> e : attributes.entrySet()) {
                Object v = e.getValue().get();
                infos.add(new MBeanAttributeInfo(e.getKey(), v == null ? String.class.getName()
                        : v.getClass().getName(), e.getKey(), true, false, false));
            }
            info = new MBeanInfo(ReadOnly.class.getName(), description,
                    infos.toArray(new MBeanAttributeInfo[0]), null, null, null);
        }

        @Override
        public Object getAttribute(String name) throws AttributeNotFoundException {
            Supplier<Object> s = attributes.get(name);
            if (s == null) {
                throw new AttributeNotFoundException(name);
            }
            return s.get();
        }

        @Override
        public void setAttribute(Attribute attribute) throws AttributeNotFoundException {
            throw new AttributeNotFoundException(attribute.getName() + " is read-only");
        }

        @Override
        public AttributeList getAttributes(String[] names) {
            AttributeList l = new AttributeList();
            for (String n : names) {
                Supplier<Object> s = attributes.get(n);
                if (s != null) {
                    l.add(new Attribute(n, s.get()));
                }
            }
            return l;
        }

        @Override
        public AttributeList setAttributes(AttributeList attributes) {
            return new AttributeList();
        }

        @Override
        public Object invoke(String action, Object[] params, String[] signature) {
            throw new UnsupportedOperationException(action);
        }

        @Override
        public MBeanInfo getMBeanInfo() {
            return info;
        }
    }
}
