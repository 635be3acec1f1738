package org.sdp4j.rsocket;

import java.nio.channels.ClosedChannelException;

import org.sdp4j.transport.Poller;
import org.sdp4j.transport.TransportChannel;

/**
 * What both rsocket channels ({@link RsocketSocketChannel}, {@link RsocketServerSocketChannel}) do the same way
 * through their {@link RsocketHandle}: count an operation in and out, and let a selector poll the rsocket (counted
 * in as an operation, so a close during the poll only wakes it and the last one out rcloses).
 */
interface RsocketChannel extends TransportChannel {
    RsocketHandle handle();

    boolean isOpen();

    /** Whether a selector may poll the rsocket now (a listener only once it listens). */
    default boolean pollable() {
        return true;
    }

    /** Counts an operation in: the rsocket, or ClosedChannelException. */
    default int enter() throws ClosedChannelException {
        int fd = isOpen() ? handle().enter() : -1;
        if (fd < 0) {
            throw new ClosedChannelException();
        }
        return fd;
    }

    default void exit() {
        handle().exit();
    }

    @Override
    default int pollFd() {
        return handle().fd();
    }

    @Override
    default int pollBegin(Poller poller) {
        return isOpen() && pollable() ? handle().pollBegin(poller) : -1;
    }

    @Override
    default void pollEnd(Poller poller) {
        handle().pollEnd(poller);
    }
}
