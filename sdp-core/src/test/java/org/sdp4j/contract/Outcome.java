package org.sdp4j.contract;

import java.util.Optional;

import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.TestWatcher;

/** Prints each contract test's outcome on stderr as it ends: a VM run cut short by its timeout still says what ran. */
public final class Outcome implements TestWatcher {
    private static void print(ExtensionContext c, String what) {
        System.err.println("contract " + what + " " + c.getRequiredTestClass().getSimpleName() + "."
                + c.getRequiredTestMethod().getName() + " " + c.getDisplayName());
    }

    @Override
    public void testSuccessful(ExtensionContext c) {
        print(c, "PASS");
    }

    @Override
    public void testFailed(ExtensionContext c, Throwable cause) {
        print(c, "FAIL");
        System.err.println("  " + cause);
    }

    @Override
    public void testAborted(ExtensionContext c, Throwable cause) {
        print(c, "SKIP");
        System.err.println("  " + cause.getMessage());
    }

    @Override
    public void testDisabled(ExtensionContext c, Optional<String> reason) {
        print(c, "DISABLED");
    }
}
