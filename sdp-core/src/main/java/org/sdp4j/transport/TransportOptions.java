package org.sdp4j.transport;

import java.net.SocketOption;
import java.util.Collections;
import java.util.Map;
import java.util.Set;
import java.util.WeakHashMap;

import org.sdp4j.conf.Family;
import org.sdp4j.conf.Role;
import org.sdp4j.conf.RuleSet;
import org.sdp4j.log.SdpLog;

/**
 * The socket options sdp4j's sockets accept before the rules decide: those of the transports a rule set can route
 * to (rsockets' for {@code sdp}/{@code both} rules or libsdp's defaults, UCX's for {@code ucx}), handed to the
 * transport's socket if it is chosen (TCP ignores them). None under rules that send everything to TCP, where a
 * socket must look exactly as without sdp4j. Advertising is not deciding: this is apart from the {@link Router}.
 */
public final class TransportOptions {
    private TransportOptions() {}

    private static final Map<RuleSet, Set<SocketOption<?>>> CACHE = Collections.synchronizedMap(new WeakHashMap<>());

    /** The options for {@code rules}, computed once per rule set. */
    public static Set<SocketOption<?>> of(RuleSet rules) {
        return CACHE.computeIfAbsent(rules, TransportOptions::compute);
    }

    private static Set<SocketOption<?>> compute(RuleSet rules) {
        java.util.EnumSet<Family> fams = java.util.EnumSet.noneOf(Family.class);
        boolean server = false, client = false;
        for (org.sdp4j.conf.Rule r : rules.rules()) {
            if (r.family() != Family.TCP) {
                fams.add(r.family().transportFamily());
            }
            boolean all = r.program().equals("*") && r.address().isAny() && r.portLow() == 0
                    && r.portHigh() == 65535;
            server |= all && r.role() == Role.SERVER;
            client |= all && r.role() == Role.CLIENT;
        }
        if (!server || !client) {
            fams.add(Family.SDP); // libsdp's default (sdp or both) can apply
        }
        Set<SocketOption<?>> s = new java.util.HashSet<>();
        for (Transport t : Transports.all()) {
            if (fams.contains(t.family())) {
                try {
                    s.addAll(t.transportOptions());
                } catch (RuntimeException | LinkageError e) {
                    SdpLog.log(SdpLog.ERROR, t.name() + ": its socket options could not be listed: " + e);
                }
            }
        }
        return Set.copyOf(s);
    }
}
