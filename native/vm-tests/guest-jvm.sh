# The options of the JVMs the VM tests start inside their guests (sourced; sets guest_jvm).
# Under TCG a JVM takes 10-30 s to start, most of a test step's time: JIT-compiled code is translated again by
# TCG and invalidated whenever it is patched. So only code that is really hot is compiled (C1 only, thresholds x10),
# and class-path classes (ours and the drivers') skip the bytecode verifier. Measured in two-host steps, one run
# each (native/vm-tests/two-hosts, 1,000 rows): jcc-sdp 219 -> 180 s, ucx 89 -> 66, wire-cut-tcp 65 -> 48,
# echo-net 69 -> 66; -Xint did as well, and would slow the steps that move data. Benchmarks set their own options.
# SDP4J_GUEST_JVM replaces the list (SDP4J_* variables reach the guests).
# shellcheck disable=SC2034
read -r -a guest_jvm <<< "${SDP4J_GUEST_JVM:--XX:+UseSerialGC -XX:TieredStopAtLevel=1 -XX:CompileThresholdScaling=10 \
-XX:+UnlockDiagnosticVMOptions -XX:-BytecodeVerificationRemote -Xshare:auto -Djava.net.preferIPv4Stack=true}"
