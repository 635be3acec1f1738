package org.sdp4j.ops;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Event;
import jdk.jfr.Label;
import jdk.jfr.Threshold;

/**
 * A read or write of an sdp4j channel ({@code rsocket}, {@code ucx}), with the JDK's {@code jdk.SocketRead} and
 * {@code jdk.SocketWrite} fields and threshold (20 ms): the JDK records those for java.net sockets, whatever their
 * SocketImpl (sdp4j's included), and for its own NIO channels, but not for other channel classes, which sdp4j's are.
 */
@Category({"sdp4j"})
@Threshold("20 ms")
abstract class SocketIoEvent extends Event {
    @Label("Transport")
    String transport;

    @Label("Remote Host")
    String host;

    @Label("Remote Address")
    String address;

    @Label("Remote Port")
    int port;

    @Label("Bytes")
    @Description("read or written; -1 at end of stream")
    long bytes;
}
