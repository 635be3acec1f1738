package org.sdp4j.agent;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import org.junit.jupiter.api.Test;

/** Which loaded classes mean "a native socket transport the rules cannot see": Netty's, relocated or not. */
class NativeSocketsTest {
    @Test
    void nettysNativeTransportsAreRecognisedUnderAnyRelocation() {
        assertArrayEquals(new String[] {"Netty's native epoll transport", ""},
                NativeSockets.watched("io/netty/channel/epoll/Native"));
        // grpc-netty-shaded: Netty relocated under io.grpc.netty.shaded (and its noNative property with it)
        assertArrayEquals(new String[] {"Netty's native epoll transport", "io.grpc.netty.shaded."},
                NativeSockets.watched("io/grpc/netty/shaded/io/netty/channel/epoll/Native"));
        assertArrayEquals(new String[] {"Netty's native io_uring transport", "com.example.shade."},
                NativeSockets.watched("com/example/shade/io/netty/channel/uring/Native"));
        assertNull(NativeSockets.watched("io/netty/channel/epoll/EpollSocketChannel"));
        assertNull(NativeSockets.watched("com/example/Native"));
        assertNull(NativeSockets.watched(null));
    }
}
