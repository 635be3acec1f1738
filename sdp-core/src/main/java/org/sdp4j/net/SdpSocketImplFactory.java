package org.sdp4j.net;

import java.net.SocketImpl;
import java.net.SocketImplFactory;

/** Installed with {@code Socket.setSocketImplFactory}: every client socket starts undecided. */
public final class SdpSocketImplFactory implements SocketImplFactory {
    @Override
    public SocketImpl createSocketImpl() {
        return new SdpSocketImpl();
    }
}
