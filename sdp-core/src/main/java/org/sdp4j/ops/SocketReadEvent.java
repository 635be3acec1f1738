package org.sdp4j.ops;

import jdk.jfr.Label;
import jdk.jfr.Name;

/** A read of an sdp4j channel that took at least the threshold (20 ms by default), as {@code jdk.SocketRead}. */
@Name("org.sdp4j.SocketRead")
@Label("sdp4j Socket Read")
final class SocketReadEvent extends SocketIoEvent {
}
