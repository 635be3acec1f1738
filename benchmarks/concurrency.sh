#!/usr/bin/env bash
# Issue 13's benchmarks in one report, every transport side by side (none, tcp, ucx by default), interleaved:
#   conc      64 B round trips per second with N = 1, 16, 256, 1000 connections at once, on platform and on virtual
#             threads (echo server in the same JVM; --conc-server peer: in a second JVM on the agent); connect bursts
#             of N; connect + close of one connection
#   perftest  UCX's own `ucx_perftest -t stream_lat -s 64` run in turn with sdp4j's 64 B Socket/SocketChannel ping-pong
#   users     H2 2.2.224's TCP server (in-memory database) in a second JVM on the agent: single INSERT with autocommit and
#             prepared point SELECT, per round with its spread
#   pool      the JCC workload from 32 virtual threads through a HikariCP pool against Derby 10.8.3.0 in a second JVM
#
# usage: benchmarks/concurrency.sh [--quick|--full] [report.sh / Report options ...] [-- -Dprop=value ...]
#   default: --quick --rounds 3 --configs none,tcp,ucx --groups conc,perftest,users,pool, on Temurin 25 (virtual threads)
#   e.g. benchmarks/concurrency.sh --groups users --rounds 5        (H2 only, five rounds)
#        benchmarks/concurrency.sh --conc-n 1,16,256 --conc-threads platform --conc-server peer
#        benchmarks/concurrency.sh --baseline benchmarks/target/concurrency-before/summary.json
# Output: benchmarks/target/concurrency/ (report.md, charts/, summary.json, logs/); --out DIR to change it.
# Installs ucx-utils (ucx_perftest) when missing and run as root, as native/install-deps.sh does for the build.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

if ! command -v ucx_perftest >/dev/null; then
  if ! dpkg-query -W -f='${Status}' ucx-utils 2>/dev/null | grep -q "install ok installed"; then
    if [ "$(id -u)" = 0 ]; then
      echo "concurrency.sh: installing ucx-utils (ucx_perftest)" >&2
      DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends ucx-utils >/dev/null \
        || echo "concurrency.sh: installing ucx-utils failed; the ucx_perftest row will say so" >&2
    else
      echo "concurrency.sh: ucx_perftest missing (apt-get install ucx-utils as root); the ucx_perftest row will say so" >&2
    fi
  fi
fi

java_args=()
case " $* " in
  *" --java "*) ;;
  *) for j in /usr/lib/jvm/temurin-25-jdk-amd64/bin/java "${JAVA25_HOME:-/nonexistent}/bin/java"; do
       [ -x "$j" ] && { java_args=(--java "$j"); break; }
     done
     [ ${#java_args[@]} -gt 0 ] || echo "concurrency.sh: no Temurin 25 found: virtual-thread benchmarks need Java 21+ (--java PATH)" >&2 ;;
esac

defaults=()
case " $* " in *" --configs "*) ;; *) defaults+=(--configs none,tcp,ucx) ;; esac
case " $* " in *" --groups "*) ;; *) defaults+=(--groups conc,perftest,users,pool) ;; esac
case " $* " in *" --rounds "*) ;; *) defaults+=(--rounds 3) ;; esac
case " $* " in *" --out "*) ;; *) defaults+=(--out "$here/target/concurrency") ;; esac
case " $* " in *" --timeout "*) ;; *) defaults+=(--timeout 240) ;; esac

exec "$here/report.sh" "${java_args[@]}" "${defaults[@]}" "$@"
