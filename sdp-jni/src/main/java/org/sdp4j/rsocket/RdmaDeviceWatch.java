package org.sdp4j.rsocket;

import java.io.IOException;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.SocketException;

import org.sdp4j.log.SdpLog;

/**
 * Notices that the RDMA device under an rsocket connection is being removed ({@code rdma link delete}, a driver
 * unloaded, a hot-unplug). rsockets does not act on librdmacm's {@code RDMA_CM_EVENT_DEVICE_REMOVAL}: the
 * connection stays "connected", reads wait for data that cannot come, and the kernel finishes the removal only when
 * the process lets go of the device (two-host step {@code device-gone-sdp}, docs/reliability.md). What does change
 * at once is the kernel's RDMA netlink list of devices ({@link Native#rdmaLinks}): the device leaves it while sysfs
 * still shows it with its ports ACTIVE.
 *
 * <p>So each connection learns its device when it is established ({@link #deviceOf}: the netdev of its local
 * address, and the device with a port on that netdev), and a lasting wait of a read or a write asks, beside
 * {@link CmStallWatch}, every {@link CmStallWatch#CHECK_MS}, whether that device is still listed
 * ({@link #isGone}). The list is read once per {@link #REFRESH_NANOS} for the whole process, whatever the number
 * of waiters, and only while someone waits. A connection whose device left fails its blocked and later reads and
 * writes with an IOException naming the device. Reading the list never fails a connection: where it cannot be read
 * (no NETLINK_RDMA) nothing is watched.
 */
final class RdmaDeviceWatch {
    private RdmaDeviceWatch() {}

    /** How old the device list may be when a waiter asks (the same as a wait's slice). */
    static final long REFRESH_NANOS = CmStallWatch.CHECK_MS * 1_000_000L;

    /** An RDMA device: the kernel's index (kept across a rename: the watch follows it) and its name when found. */
    record Device(String index, String name) {
        @Override
        public String toString() {
            return name;
        }
    }

    /** Local address -> its device, as found (an address moving to another device is not followed). */
    private static final java.util.concurrent.ConcurrentHashMap<InetAddress, Device> BY_ADDRESS =
            new java.util.concurrent.ConcurrentHashMap<>();
    private static final Object LOCK = new Object();
    // guarded by LOCK
    private static String links;
    private static long readAt;
    private static boolean unreadable, warned;
    /** After a failed read, how long until the list is asked for again. */
    private static final long RETRY_NANOS = 10_000_000_000L;

    /**
     * The RDMA device that carries a connection from local address {@code local}: the device with a port on the
     * address's netdev; null when none is found (nothing is watched then).
     */
    static Device deviceOf(InetAddress local) {
        if (local == null) {
            return null;
        }
        Device known = BY_ADDRESS.get(local);
        if (known != null && !isGone(known)) {
            return known; // a device deleted and added again has a new index: looked up afresh below
        }
        try {
            NetworkInterface nif = NetworkInterface.getByInetAddress(local);
            String list = list(true);
            Device dev = nif == null || list == null ? null : deviceFor(list, nif.getName());
            if (dev == null) {
                BY_ADDRESS.remove(local);
            } else if (BY_ADDRESS.size() < 1024) {
                BY_ADDRESS.put(local, dev);
            }
            return dev;
        } catch (SocketException e) {
            return null;
        }
    }

    /** In a device list ("INDEX NAME NETDEV...\n" per device), the device with a port on netdev; null when none. */
    static Device deviceFor(String list, String netdev) {
        for (String line : list.split("\n")) {
            String[] w = line.trim().split(" +");
            for (int i = 2; i < w.length; i++) {
                if (w[i].equals(netdev)) {
                    return new Device(w[0], w[1]);
                }
            }
        }
        return null;
    }

    /** Whether device is missing from the kernel's list (read at most {@link #REFRESH_NANOS} ago). */
    static boolean isGone(Device device) {
        String list = list(false);
        return list != null && !listed(list, device);
    }

    /** Whether device is missing from the kernel's list, read now (a failure's cause: rare, so never stale). */
    static boolean goneNow(Device device) {
        String list = list(true);
        return list != null && !listed(list, device);
    }

    /** Whether the list holds the device's index (its name may have changed). */
    static boolean listed(String list, Device device) {
        for (String line : list.split("\n")) {
            int sp = line.indexOf(' ');
            if (sp > 0 && line.substring(0, sp).equals(device.index())) {
                return true;
            }
        }
        return false;
    }

    /** The message of the IOException a connection whose device left throws. */
    static String goneMessage(Device device) {
        return "Connection lost: RDMA device " + device + " was removed under this rsocket connection (it left the "
                + "kernel's RDMA device list; rdma link show no longer lists it)";
    }
    /** The device list, fresh ({@code now}) or at most {@link #REFRESH_NANOS} old; null when it cannot be read. */
    private static String list(boolean now) {
        synchronized (LOCK) {
            long t = System.nanoTime();
            if (unreadable && t - readAt < RETRY_NANOS) {
                return null; // no NETLINK_RDMA here, or it failed a moment ago: asked again after a while
            }
            if (links == null || unreadable || now || t - readAt >= REFRESH_NANOS) {
                try {
                    // loaded here too: a JVM whose connections are all ucx asks before anything loaded the library
                    Throwable notLoaded = NativeLibrary.loadFailure();
                    if (notLoaded != null) {
                        throw new IOException("libsdp4j is not loaded: " + notLoaded.getMessage());
                    }
                    links = Native.rdmaLinks();
                    unreadable = false;
                } catch (IOException | RuntimeException | UnsatisfiedLinkError e) {
                    if (!unreadable && !warned) {
                        warned = true;
                        SdpLog.log(SdpLog.WARN, "sdp4j: the RDMA device list cannot be read (" + e.getMessage()
                                + "): rsocket and ucx connections are not watched for a removed device meanwhile");
                    }
                    unreadable = true;
                    links = null;
                }
                readAt = t;
            }
            return links;
        }
    }
}
