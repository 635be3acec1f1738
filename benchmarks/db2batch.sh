#!/usr/bin/env bash
# The seed's db2batch workload through sdp4j, in one JVM:
#   IBM Db2 JDBC driver (JCC) -> [sdp4j agent, libsdp.conf rules] -> Apache Derby 10.8.3.0 Network Server (DRDA),
#   4000 INSERTs with autocommit, SELECT of the 4000 rows (every row checked), a db2batch-like summary on stdout
#   and the agent's decision log (log min-level 7) on stderr.
#
# usage: benchmarks/db2batch.sh [--rows N] [--transport tcp|both|sdp] [--server-transport tcp|both|sdp]
#                               [--no-agent] [--java PATH] [--each] [--keep] [--no-verify] [--no-build]
#   --rows N              rows to INSERT and SELECT (default 4000)
#   --transport F         family of the rules for the Derby port (default both; without RDMA: TCP after a failed
#                         RDMA attempt). sdp has no TCP fallback: on a host without RDMA the run fails, by design.
#   --server-transport F  family of the Derby *listen* rule (default: same as --transport)
#   --no-agent            plain JVM, no sdp4j (the baseline)
#   --java PATH           the java to run (default $JAVA_HOME/bin/java, else java on PATH); the jars are Java 17
#   --each                print every INSERT's elapsed time
#   --keep                keep the temp dir (libsdp.conf, stderr log)
#   --no-verify           do not check the decision log for the expected rule lines
#   --no-build            never run Maven (fail if a jar is missing)
# Extra arguments after -- go to the JVM (e.g. -- -Djdbc.url=jdbc:db2://host:50000/SAMPLE -Djdbc.user=u ...).
# Exit status: 0 success; 1 the workload failed; 2 usage; 3 the decision log lacks an expected decision;
#              4 the build failed.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/.." && pwd)

rows=4000 family=both server_family= use_agent=1 java_bin= each= keep= verify=1 build=1
jvm_extra=()
die_usage() { echo "db2batch.sh: $*" >&2; sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//' >&2; exit 2; }
while [ $# -gt 0 ]; do
  case $1 in
    --rows) [ $# -ge 2 ] || die_usage "--rows needs a value"; rows=$2; shift 2 ;;
    --transport|--family) [ $# -ge 2 ] || die_usage "$1 needs a value"; family=$2; shift 2 ;;
    --server-transport) [ $# -ge 2 ] || die_usage "$1 needs a value"; server_family=$2; shift 2 ;;
    --no-agent) use_agent=0; shift ;;
    --java) [ $# -ge 2 ] || die_usage "--java needs a value"; java_bin=$2; shift 2 ;;
    --each) each=--each; shift ;;
    --keep) keep=1; shift ;;
    --no-verify) verify=0; shift ;;
    --no-build) build=0; shift ;;
    -h|--help) sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    --) shift; jvm_extra=("$@"); break ;;
    *) die_usage "unknown argument '$1'" ;;
  esac
done
case $family in tcp|both|sdp) ;; *) die_usage "--transport must be tcp, both or sdp (got '$family')" ;; esac
server_family=${server_family:-$family}
for a in "${jvm_extra[@]}"; do
  case $a in -Djdbc.url=*)
    echo "db2batch.sh: external database ($a): the Derby rules do not apply, decision log not checked" >&2; verify=0 ;;
  esac
done
case $server_family in tcp|both|sdp) ;; *) die_usage "--server-transport must be tcp, both or sdp" ;; esac
[[ $rows =~ ^[0-9]+$ ]] && [ "$rows" -ge 1 ] || die_usage "--rows must be a positive integer"

if [ -z "$java_bin" ]; then
  if [ -n "${JAVA_HOME:-}" ] && [ -x "$JAVA_HOME/bin/java" ]; then java_bin=$JAVA_HOME/bin/java; else java_bin=java; fi
fi
command -v "$java_bin" >/dev/null || { echo "db2batch.sh: no java ('$java_bin'); install a JDK 17+ or pass --java" >&2; exit 2; }

# ---- build what is missing or older than its sources ----------------------------------------------------------
. "$here/lib/build.sh"
[ "$build" = 1 ] || export SDP4J_NO_BUILD=1
ensure_built "$use_agent" 1 || exit 4
[ -f "$bench_jar" ] || { echo "db2batch.sh: $bench_jar missing after the build" >&2; exit 4; }
if [ "$use_agent" = 1 ] && [ ! -f "$agent_jar" ]; then echo "db2batch.sh: $agent_jar missing after the build" >&2; exit 4; fi

# ---- rules ----------------------------------------------------------------------------------------------------
tmp=$(mktemp -d "${TMPDIR:-/tmp}/sdp4j-db2batch.XXXXXX")
cleanup() { if [ -n "$keep" ]; then echo "db2batch.sh: kept $tmp" >&2; else rm -rf "$tmp"; fi; }
trap cleanup EXIT

free_port() { "$java_bin" -cp "$bench_jar" org.sdp4j.bench.Db2BatchMain --free-port; }
db_port=$(free_port)
ldap_port=$(free_port)
while [ "$ldap_port" = "$db_port" ]; do ldap_port=$(free_port); done

conf=$tmp/libsdp.conf
cat >"$conf" <<EOF
# written by benchmarks/db2batch.sh -- "Db2 on RDMA, LDAP on TCP", with Derby standing in for Db2
log min-level 7 destination stderr
# the DRDA server (Derby 10.8.3.0 in this JVM) and the JCC connections to it
use $server_family server * 127.0.0.1:$db_port
use $family client * 127.0.0.1:$db_port
# an "LDAP" port stays on TCP, whatever comes after
use tcp client * 127.0.0.1:$ldap_port
# everything else
use tcp server * *:*
use tcp client * *:*
EOF
line_of() { grep -n -F -- "$1" "$conf" | head -1 | cut -d: -f1; }
server_line=$(line_of "use $server_family server * 127.0.0.1:$db_port")
client_line=$(line_of "use $family client * 127.0.0.1:$db_port")
ldap_line=$(line_of "use tcp client * 127.0.0.1:$ldap_port")

jvm=("$java_bin")
if [ "$use_agent" = 1 ]; then
  jvm+=("-javaagent:$agent_jar=conf=$conf")
  {
    echo "db2batch.sh: agent $agent_jar"
    echo "db2batch.sh: rules $conf:"
    sed 's/^/    /' "$conf"
  } >&2
else
  echo "db2batch.sh: --no-agent: plain JDK sockets, no sdp4j" >&2
fi
jvm+=("${jvm_extra[@]}" -cp "$bench_jar" org.sdp4j.bench.Db2BatchMain --rows "$rows" --port "$db_port" --ldap-port "$ldap_port")
[ -n "$each" ] && jvm+=("$each")

# ---- run: stdout straight through, stderr through tee (so the decision log can be checked afterwards) ---------
errlog=$tmp/stderr.log
set +e
{ "${jvm[@]}" 2>&1 1>&3 3>&- | tee "$errlog" >&2; } 3>&1
rc=${PIPESTATUS[0]}
set -e

if [ "$rc" != 0 ]; then
  echo "db2batch.sh: FAILED: the JVM exited with status $rc" >&2
  if [ "$use_agent" = 1 ] && { [ "$family" = sdp ] || [ "$server_family" = sdp ]; }; then
    echo "db2batch.sh: (a 'use sdp' rule has no TCP fallback: without RDMA on this host the connect or listen must fail;" \
         "see 'java -jar $agent_jar selftest')" >&2
  fi
  exit 1
fi

# ---- check that the agent decided the connections by the rules written above -----------------------------------
if [ "$use_agent" = 1 ] && [ "$verify" = 1 ]; then
  bad=0
  check() { # LINE WHAT: a "sdp4j: " decision line naming rule=line LINE must exist
    local hits
    hits=$(grep -E "^sdp4j: .* rule=line $1( |,|$)" "$errlog" || true)
    if [ -z "$hits" ]; then
      echo "db2batch.sh: FAILED: no decision logged for $2 (expected a stderr line 'sdp4j: ... rule=line $1 ...')" >&2
      bad=1
    else
      echo "db2batch.sh: $2 -> rule line $1: $(echo "$hits" | grep -oE ' transport=[^ ]+' | sort | uniq -c | tr -s ' ' | tr '\n' ';')" >&2
    fi
  }
  check "$server_line" "Derby listen on 127.0.0.1:$db_port ($server_family)"
  check "$client_line" "connects to 127.0.0.1:$db_port, JCC and the server shutdown ($family)"
  check "$ldap_line" "LDAP stand-in connect to 127.0.0.1:$ldap_port (tcp)"
  if grep -qE "^sdp4j: .* rule=line $ldap_line( |,|$).* transport=(rdma|sdp|rsocket|ucx)" "$errlog"; then
    echo "db2batch.sh: FAILED: the 'use tcp' LDAP rule was not honoured (transport other than tcp)" >&2
    bad=1
  fi
  [ $bad = 0 ] || exit 3
fi
exit 0
