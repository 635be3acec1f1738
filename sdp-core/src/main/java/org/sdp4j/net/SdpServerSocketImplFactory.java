package org.sdp4j.net;

import java.net.SocketImpl;
import java.net.SocketImplFactory;

/** Installed with {@code ServerSocket.setSocketFactory}: every listener is decided when it starts listening. */
public final class SdpServerSocketImplFactory implements SocketImplFactory {
    @Override
    public SocketImpl createSocketImpl() {
        return new SdpServerSocketImpl();
    }
}
