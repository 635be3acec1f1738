package org.sdp4j.ops;

import jdk.jfr.Label;
import jdk.jfr.Name;

/** A connection accepted by an sdp4j listener. */
@Name("org.sdp4j.Accept")
@Label("sdp4j Accept")
final class AcceptEvent extends DecisionEvent {
}
