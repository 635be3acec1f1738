package org.sdp4j.ucx;

import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;

/**
 * What the {@link Watchdog} reads: a rendezvous socket kept as the control channel of one or more UCX connections
 * between two processes ({@link Link}: one connection at a time; {@link SharedLink}: many, each named in its
 * messages). Messages are frames of a fixed size per kind of channel.
 */
abstract class Controlled {
    final SocketChannel control;
    /** Control bytes read so far of an incomplete frame (watchdog thread only). */
    ByteBuffer pendingControl;

    Controlled(SocketChannel control) {
        this.control = control;
    }

    /** The watchdog's key for {@link #control}, once it registered it (for {@link #wantWrite}). */
    volatile java.nio.channels.SelectionKey selectionKey;

    /** Whether messages wait for the socket to take them (asked by the watchdog when it registers the socket). */
    boolean wantsWrite() {
        return false;
    }

    /** The socket takes bytes again (watchdog thread): the messages waiting go out. */
    void writable() {
    }

    /** Asks the watchdog to call {@link #writable} once the socket takes bytes again. */
    void wantWrite() {
        java.nio.channels.SelectionKey k = selectionKey;
        if (k != null) {
            try {
                k.interestOps(java.nio.channels.SelectionKey.OP_READ | java.nio.channels.SelectionKey.OP_WRITE);
                k.selector().wakeup();
            } catch (java.nio.channels.CancelledKeyException e) {
                // ended meanwhile
            }
        }
    }

    /** The size of one control message. */
    abstract int frame();

    /** One control message, {@link #frame} bytes of {@code b} (watchdog thread); false: not the protocol. */
    abstract boolean control(ByteBuffer b);

    /** The control socket hung up ({@code why} null) or broke (watchdog thread). */
    abstract void hangUp(String why);

    /** Ends the channel's connections' future: a protocol error was seen (watchdog thread). */
    abstract void teardown();
}
