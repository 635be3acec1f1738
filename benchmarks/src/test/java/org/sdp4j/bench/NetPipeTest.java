package org.sdp4j.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** The sweep's socket pairs move the right bytes (no timing): echo returns the message, a burst is acknowledged. */
class NetPipeTest {

    @Test
    void messagesPerBurst() {
        assertEquals(1024, NetPipe.messages(1));
        assertEquals(1024, NetPipe.messages(8192));
        assertEquals(128, NetPipe.messages(65536));
        assertEquals(4, NetPipe.messages(8 << 20));
    }

    @Test
    void socketAndChannelPairs() throws Exception {
        for (int size : new int[] {1, 1000, 65536, 3 << 20}) {
            NetPipe.SocketEcho se = new NetPipe.SocketEcho();
            se.size = size;
            se.setup();
            for (int k = 0; k < 3; k++) assertEquals(se.msg[size - 1], se.roundTrip());
            se.tearDown();

            NetPipe.ChannelEcho ce = new NetPipe.ChannelEcho();
            ce.size = size;
            ce.setup();
            for (int k = 0; k < 3; k++) assertEquals(ce.msg.get(size - 1), ce.roundTrip());
            ce.tearDown();

            NetPipe.SocketSink ss = new NetPipe.SocketSink();
            ss.size = size;
            ss.setup();
            for (int k = 0; k < 2; k++) assertEquals(1, ss.burst());
            ss.tearDown();

            NetPipe.ChannelSink cs = new NetPipe.ChannelSink();
            cs.size = size;
            cs.setup();
            for (int k = 0; k < 2; k++) assertEquals(1, cs.burst());
            cs.tearDown();
        }
    }
}
