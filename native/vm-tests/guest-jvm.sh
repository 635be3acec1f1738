# The options of the JVMs the VM tests start inside their guests (sourced; sets guest_jvm and guest_jvm_busy).
# Under TCG a JVM takes 10-30 s to start, most of a short test step: JIT-compiled code is translated again by TCG and
# invalidated whenever it is patched, and every class on the class path is verified. So class-path classes (ours and
# the drivers') skip the bytecode verifier everywhere, and a JVM that mostly starts and exchanges little compiles only
# code that is really hot (C1 thresholds x10). Measured, one run each: two-host steps (1,000 rows) jcc-sdp 219 ->
# 180 s, ucx 89 -> 66, wire-cut-tcp 65 -> 48 with guest_jvm (-Xint did as well); but a JVM that works hard for
# minutes needs its compiler early: the 256 two-JVM connects of run-all.sh's step j took 255 s instead of ~90 with
# the x10 thresholds, so those (j, k, the contract suites) use guest_jvm_busy. Benchmarks set their own options.
# SDP4J_GUEST_JVM / SDP4J_GUEST_JVM_BUSY replace the lists (SDP4J_* variables reach the guests). A JVM that crashes
# writes its hs_err file to the output directory, where run-all.sh's summary line names the signal and the frame.
# shellcheck disable=SC2034
read -r -a guest_jvm_busy <<< "${SDP4J_GUEST_JVM_BUSY:--XX:+UseSerialGC -XX:TieredStopAtLevel=1 \
-XX:+UnlockDiagnosticVMOptions -XX:-BytecodeVerificationRemote -Xshare:auto -Djava.net.preferIPv4Stack=true \
-XX:ErrorFile=${SDP4J_OUT:-/tmp}/hs_err_pid%p.log}"
# shellcheck disable=SC2034
read -r -a guest_jvm <<< "${SDP4J_GUEST_JVM:-${guest_jvm_busy[*]} -XX:CompileThresholdScaling=10}"
