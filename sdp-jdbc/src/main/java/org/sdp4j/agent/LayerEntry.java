package org.sdp4j.agent;

import java.lang.instrument.Instrumentation;
import java.nio.channels.spi.SelectorProvider;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * How the agent's boot class ({@code org.sdp4j.boot.AgentBoot}, on the class path) starts sdp4j inside its module
 * layer: a service of a JDK type, since the module exports nothing the boot class could call. Runs once: whoever
 * finds this service later (it is visible to anyone holding the layer) gets an exception, not a second agent.
 */
public final class LayerEntry implements Function<Object[], Object> {
    private static final AtomicBoolean STARTED = new AtomicBoolean();

    @Override
    @SuppressWarnings("unchecked")
    public Object apply(Object[] a) {
        if (!STARTED.compareAndSet(false, true)) {
            throw new IllegalStateException("sdp4j's agent has started already");
        }
        Agent.start((String) a[0], (Instrumentation) a[1], (Boolean) a[2],
                new Agent.Layer((Consumer<SelectorProvider>) a[3], (String) a[4], (Runnable) a[5]));
        return null;
    }
}
