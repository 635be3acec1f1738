#!/usr/bin/env bash
# JMH comparison of transport configurations in one invocation: every benchmark (64-byte Socket and SocketChannel
# ping-pong; JCC single INSERT and SELECT of 4000 rows against in-process Derby 10.8.3.0) runs in forks started as
#   none  plain JVM                 tcp   agent + "use tcp server/client * *:*"
#   both  agent + "use both ..."    sdp   agent + "use sdp ..."  (unavailable without RDMA: reported, with the reason)
# interleaved round by round, then a table: score ± error (99.9%), ratio to none with its propagated error.
#
# usage: benchmarks/compare.sh [--quick|--full] [--java PATH] [CompareTransports options...]
#   --quick   (default) 2 rounds, 2x1 s warmup + 3x1 s measurement per fork: about 4 minutes on 2 cores
#   --full    5 rounds, 3x2 s warmup + 5x2 s measurement per fork: about 25 minutes
#   --java P  the JVM for the runner and the forks (default $JAVA_HOME/bin/java, else java on PATH)
#   other options go to org.sdp4j.bench.CompareTransports, e.g. --configs none,tcp,both --bench JccWorkload
#   --rounds N --warmup N --iterations N --time S -p size=64,1024; -Djdbc.url=... via JAVA_OPTS for a real Db2.
# Results: benchmarks/target/results/ (JMH JSON per fork run, summary.csv, summary.txt, probe-*.txt, logs/).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/.." && pwd)

java_bin= args=()
while [ $# -gt 0 ]; do
  case $1 in
    --java) [ $# -ge 2 ] || { echo "compare.sh: --java needs a value" >&2; exit 2; }; java_bin=$2; shift 2 ;;
    -h|--help) sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) args+=("$1"); shift ;;
  esac
done
if [ -z "$java_bin" ]; then
  if [ -n "${JAVA_HOME:-}" ] && [ -x "$JAVA_HOME/bin/java" ]; then java_bin=$JAVA_HOME/bin/java; else java_bin=$(command -v java || true); fi
fi
[ -n "$java_bin" ] && [ -x "$java_bin" ] || { echo "compare.sh: no java; install a JDK 17+ or pass --java" >&2; exit 2; }

. "$here/lib/build.sh"
# a broken agent build must not stop the baseline: CompareTransports reports the agent configurations as unavailable
ensure_built 1 0 || exit 4
if [ -f "$agent_jar" ] && agent_stale; then
  echo "compare.sh: WARNING: $agent_jar is older than its sources (the build failed); its results describe that old jar" >&2
fi

mkdir -p "$here/target/results"
cd "$root"
# shellcheck disable=SC2086
exec "$java_bin" ${JAVA_OPTS:-} -cp "$bench_jar" org.sdp4j.bench.CompareTransports \
  --agent "$agent_jar" --jvm "$java_bin" --out "$here/target/results" "${args[@]}"
