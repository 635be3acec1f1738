#!/usr/bin/env bash
# One report, every transport side by side: the db2batch-style database workload through the IBM Db2 JDBC driver
# (single INSERT with autocommit, block of 4000 INSERTs, SELECT of 4000 rows, prepared point SELECT) and NetPIPE-style
# socket sweeps (round trip and streaming bandwidth, 1 B .. 8 MiB, java.net.Socket and SocketChannel), for
#   none  plain JVM (the baseline)      tcp   agent + "use tcp server/client * *:*"
#   both  agent + "use both ..."        sdp   agent + "use sdp ..."      ucx   agent + "use ucx ..."
# Transports that cannot run here are listed as unavailable, with the reason.
#
# usage: benchmarks/report.sh [--quick|--full] [--baseline FILE] [--java PATH] [Report options...] [-- -Dprop=value ...]
#   --quick          (default) sizes 1 B, 64 B, 1 KiB, 64 KiB, 1 MiB, 8 MiB; 2 rounds; about 3 minutes on 2 cores
#   --full           every power of two from 1 B to 8 MiB, more and longer iterations, 3 rounds: about 30 minutes
#   --baseline FILE  a previous summary.json (or its directory): the report shows the change against it
#   --java PATH      the JVM for the runner and the measuring JVMs (default $JAVA_HOME/bin/java, else java on PATH)
#   --out DIR        where the report goes (default benchmarks/target/report)
#   other options go to org.sdp4j.bench.Report: --configs none,tcp,both,sdp,ucx --groups db,net --rounds N
#   --iterations N --iteration-ms MS --warmup-ms MS --blocks N --sizes 1,64,1K,64K --perturb 3 --rows N --timeout S (per JMH run)
#   --fork-jvm-args "-Xms512m -Xmx512m"
#   after --: system properties for the runner, passed on to the measuring JVMs, e.g. a real Db2:
#   -- -Djdbc.url=jdbc:db2://host:50000/SAMPLE -Djdbc.user=db2inst1 -Djdbc.password=secret [-Djdbc.securityMechanism=N]
#   -- -Dsdp4j.bench.durable=true   Derby commits wait for the disk (default: they do not)
#   -- -Dsdp4j.bench.host=10.1.0.5  listen/connect on this address instead of 127.0.0.1 (rsockets has no loopback)
# Output: OUT/report.md, OUT/charts/*.svg, OUT/summary.json, OUT/summary.csv, OUT/jmh/*.json, OUT/logs/.
# Exit status: 0 every available transport ran everything; 1 a run failed (the report says which); 2 usage; 4 build.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/.." && pwd)
start=$(date +%s)

java_bin= args=() props=()
while [ $# -gt 0 ]; do
  case $1 in
    --java) [ $# -ge 2 ] || { echo "report.sh: --java needs a value" >&2; exit 2; }; java_bin=$2; shift 2 ;;
    -h|--help) sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    --) shift; props=("$@"); break ;;
    *) args+=("$1"); shift ;;
  esac
done
if [ -z "$java_bin" ]; then
  if [ -n "${JAVA_HOME:-}" ] && [ -x "$JAVA_HOME/bin/java" ]; then java_bin=$JAVA_HOME/bin/java; else java_bin=$(command -v java || true); fi
fi
[ -n "$java_bin" ] && [ -x "$java_bin" ] || { echo "report.sh: no java; install a JDK 17+ or pass --java" >&2; exit 2; }

. "$here/lib/build.sh"
# a broken agent build must not stop the baseline: the report lists the agent configurations as unavailable
ensure_built 1 0 || exit 4
if [ -f "$agent_jar" ] && agent_stale; then
  echo "report.sh: WARNING: $agent_jar is older than its sources (the build failed); its results describe that old jar" >&2
fi
built=$(date +%s)

cd "$root"
set +e
"$java_bin" "${props[@]}" -cp "$bench_jar" org.sdp4j.bench.Report --agent "$agent_jar" --jvm "$java_bin" \
  --command "benchmarks/report.sh${args[*]:+ ${args[*]}}" "${args[@]}"
rc=$?
set -e
end=$(date +%s)
echo "report.sh: $((end - start)) s in all ($((built - start)) s build check, $((end - built)) s measuring and reporting); exit $rc" >&2
exit $rc
