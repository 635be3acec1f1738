package org.sdp4j.jdk;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.FileDescriptor;
import java.io.IOException;
import java.net.SocketImpl;

import org.junit.jupiter.api.Test;

/** The JDK internals sdp4j reaches, with the access the agent grants (here: surefire's --add-opens/--add-exports). */
class JdkAccessTest {

    @Test
    void descriptorNumbersAreReadable() throws IOException {
        assertEquals(0, JdkNio.fdVal(FileDescriptor.in));
        assertEquals(1, JdkNio.fdVal(FileDescriptor.out));
    }

    @Test
    void platformImplsAndTheirDescriptors() throws IOException {
        assertTrue(JdkNet.isAccessible());
        SocketImpl server = JdkNet.newPlatformImpl(true);
        JdkNet.create(server, true);
        try {
            FileDescriptor fd = JdkNet.fileDescriptor(server);
            assertNotNull(fd);
            assertTrue(JdkNio.fdVal(fd) > 2, "a socket's descriptor number");
        } finally {
            JdkNet.close(server);
        }
    }

    @Test
    void theJdksDefaultProviderIsReachable() {
        assertNotNull(JdkNio.defaultProvider());
    }
}
