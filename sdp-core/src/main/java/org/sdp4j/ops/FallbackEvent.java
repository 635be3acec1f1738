package org.sdp4j.ops;

import jdk.jfr.Label;
import jdk.jfr.Name;

/** A connect or listen that a rule sent to RDMA and that ended on TCP, with the reason. */
@Name("org.sdp4j.Fallback")
@Label("sdp4j Fallback")
final class FallbackEvent extends DecisionEvent {
}
