package org.sdp4j.ucx;

import java.nio.ByteBuffer;

/**
 * A JVM for {@link UcxDirectMemoryTest}: fills its direct memory past the staging share with buffers nobody holds
 * (the staging buffers of closed connections, as far as the count knows), then asks for staging room.
 */
final class StagingReclaimPeer {
    private StagingReclaimPeer() {}

    public static void main(String[] args) {
        long limit = Staging.directLimit();
        for (long taken = 0; taken < limit * 9 / 10; taken += 1 << 20) {
            ByteBuffer.allocateDirect(1 << 20); // dropped at once: garbage until a collection runs its cleaner
        }
        System.out.println("ROOM " + Staging.directRoom(Staging.STAGING_INITIAL));
    }
}
