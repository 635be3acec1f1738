package org.sdp4j.ops;

import jdk.jfr.Label;
import jdk.jfr.Name;

/** A connect decided by the rules, with its duration (the RDMA attempt and a fallback included). */
@Name("org.sdp4j.Connect")
@Label("sdp4j Connect")
final class ConnectEvent extends DecisionEvent {
}
