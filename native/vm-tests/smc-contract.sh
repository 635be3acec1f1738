# Sourced by smc.sh and smc-wire.sh: runs sdp-jni's SmcContractTest (the transport contract, both ends on
# `use smc`) in a JVM of its own and says how it went.
#   smc_contract NAME ADDRESS [JVM_ARG...]   status 0 only if no test failed; the counts in $contract_counts
# (e.g. "65 tests successful 0 tests failed ..."), the failed tests and the log's tail printed on failure
# Needs $repo, $out and $java; reports in $out/junit-NAME, the console in $out/NAME.log.
. "$repo/native/vm-tests/guest-jvm.sh"
smc_contract() {
  local name=$1 addr=$2 rc; shift 2
  local launcher=$repo/sdp-jni/target/vm-lib/junit-platform-console-standalone.jar
  local ccp="$repo/sdp-jni/target/test-classes:$repo/sdp-jni/target/classes:$repo/sdp-core/target/classes:$repo/sdp-core/target/test-classes"
  timeout -s KILL 900 "$java" "${guest_jvm_busy[@]}" \
    --add-exports java.base/sun.nio.ch=ALL-UNNAMED --add-opens java.base/java.net=ALL-UNNAMED \
    --add-opens java.base/sun.nio.ch=ALL-UNNAMED -Dsdp4j.test.address="$addr" -Dsdp4j.contract.classpath="$ccp:$launcher" \
    "$@" -jar "$launcher" execute --disable-banner --details=tree --fail-if-no-tests -cp "$ccp" \
    --select-class org.sdp4j.smc.contract.SmcContractTest --reports-dir "$out/junit-$name" > "$out/$name.log" 2>&1
  rc=$?
  sed 's/\x1b\[[0-9;]*m//g' "$out/$name.log" | grep -a '✘' | head -20
  contract_counts=$(grep -Eo '[0-9]+ tests (successful|failed|skipped|aborted)' "$out/$name.log" | tr '\n' ' ')
  [ $rc = 0 ] && grep -q ' 0 tests failed' "$out/$name.log" && return 0
  contract_counts="status $rc: $contract_counts"; tail -30 "$out/$name.log"; return 1
}
