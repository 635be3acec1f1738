# Sourced by benchmarks/db2batch.sh and benchmarks/compare.sh: build the jars they need when missing or stale.
# Needs: $root (the repository) and $here (benchmarks/). Sets: agent_jar, bench_jar.
agent_jar=$root/sdp-jdbc/target/sdp4j-agent.jar
bench_jar=$here/target/benchmarks.jar

# stale JAR PATH...: true when JAR is missing or a source file (java, c, h, pom, Makefile, resources) under the PATHs
# (outside target/ and build/) is newer than it
stale() {
  local jar=$1; shift
  [ -f "$jar" ] || return 0
  [ -n "$(find "$@" -type f -newer "$jar" -not -path '*/target/*' -not -path '*/build/*' \
          \( -name '*.java' -o -name '*.c' -o -name '*.h' -o -name 'pom.xml' -o -name 'Makefile' -o -name '*.mk' \
             -o -name 'CMakeLists.txt' -o -path '*/src/main/resources/*' \) -print -quit 2>/dev/null)" ]
}

agent_stale() { stale "$agent_jar" "$root/pom.xml" "$root/sdp-core" "$root/sdp-jni" "$root/sdp-jdbc" "$root/native/src" "$root/native/Makefile"; }
bench_stale() { stale "$bench_jar" "$root/pom.xml" "$here/pom.xml" "$here/src/main"; }

# ensure_built NEED_AGENT(0|1) STRICT(0|1): with STRICT=0 a failed full build falls back to building the benchmarks
# module alone (the caller then reports the agent as unavailable or stale). Returns 4 when a needed jar is missing.
ensure_built() {
  local need_agent=$1 strict=$2 full=0 bench=0
  if [ "$need_agent" = 1 ] && agent_stale; then full=1; fi
  if bench_stale; then bench=1; fi
  if [ $full = 0 ] && [ $bench = 0 ]; then return 0; fi
  if [ "${SDP4J_NO_BUILD:-0}" = 1 ]; then
    echo "$(basename "$0"): a jar is missing or older than its sources and SDP4J_NO_BUILD=1" >&2
    [ -f "$bench_jar" ] && { [ "$need_agent" = 0 ] || [ -f "$agent_jar" ]; } && return 0
    return 4
  fi
  # the project's Debian packages (gcc, make, maven, rdma headers ...): quiet and quick when all are installed
  if [ -x "$root/native/install-deps.sh" ]; then
    "$root/native/install-deps.sh" || { echo "$(basename "$0"): installing the build's Debian packages failed" >&2; return 4; }
  fi
  command -v mvn >/dev/null || { echo "$(basename "$0"): Maven (mvn) is needed to build the jars (apt-get install maven)" >&2; return 4; }
  if [ $full = 1 ]; then
    echo "$(basename "$0"): building: mvn -B -ntp -q -DskipTests package (in $root) ..." >&2
    if (cd "$root" && mvn -B -ntp -q -DskipTests package) >&2; then return 0; fi
    echo "$(basename "$0"): the build of the whole project failed" >&2
    [ "$strict" = 1 ] && return 4
    bench_stale || return 0
  fi
  echo "$(basename "$0"): building: mvn -B -ntp -q -DskipTests -pl benchmarks package (in $root) ..." >&2
  (cd "$root" && mvn -B -ntp -q -DskipTests -pl benchmarks package) >&2 || { echo "$(basename "$0"): the build failed" >&2; return 4; }
}
