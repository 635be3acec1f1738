package org.sdp4j.ops;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Event;
import jdk.jfr.Label;
import jdk.jfr.StackTrace;
import jdk.jfr.Timespan;

/**
 * The fields every sdp4j decision event carries; the concrete events ({@link ConnectEvent}, {@link AcceptEvent},
 * {@link FallbackEvent}) name it. Enabled in JFR's default settings ({@code @Enabled} is the default); only the
 * JVM's recording decides whether a commit writes anything, and {@link Jfr#enabled} spares the fields' strings when
 * nobody records.
 */
@Category({"sdp4j"})
@StackTrace(false)
abstract class DecisionEvent extends Event {
    @Label("Address")
    @Description("host:port connected to, listened on or accepted from")
    String address;

    @Label("Rule")
    @Description("the libsdp.conf rule that decided (file:line), or the default")
    String rule;

    @Label("Family")
    String family;

    @Label("Transport")
    String transport;

    @Label("Reason")
    @Description("why not RDMA, or the error the application saw")
    String reason;

    @Label("Took")
    @Description("from the decision to the connection (the RDMA attempt and a fallback included)")
    @Timespan(Timespan.NANOSECONDS)
    long took;
}
