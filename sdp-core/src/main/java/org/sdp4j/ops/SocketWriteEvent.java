package org.sdp4j.ops;

import jdk.jfr.Label;
import jdk.jfr.Name;

/** A write of an sdp4j channel that took at least the threshold (20 ms by default), as {@code jdk.SocketWrite}. */
@Name("org.sdp4j.SocketWrite")
@Label("sdp4j Socket Write")
final class SocketWriteEvent extends SocketIoEvent {
}
