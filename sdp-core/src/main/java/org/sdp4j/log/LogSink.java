package org.sdp4j.log;

/** Where log lines go. Implementations are thread-safe and never throw: a failing sink falls back to stderr. */
interface LogSink {
    void write(String message);

    /** For {@link SdpLog#destination()}: "stderr", "file /tmp/x.1000/log", ... */
    String describe();

    default void close() {}
}
