package org.sdp4j.log;

/**
 * libsdp's default destination. Lines keep the {@code sdp4j: } prefix the agent's own messages use, so stderr reads
 * as one voice; {@code System.err} is looked up per line because applications (and tests) replace it.
 */
final class StderrSink implements LogSink {
    static final StderrSink INSTANCE = new StderrSink();

    private StderrSink() {}

    @Override
    public void write(String message) {
        System.err.println("sdp4j: " + message);
    }

    @Override
    public String describe() {
        return "stderr";
    }

    /** A problem with the logging itself: always shown, whatever the min-level. */
    static void warn(String message) {
        System.err.println("sdp4j: WARNING " + message);
    }
}
