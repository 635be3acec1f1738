#!/bin/bash
# run.sh CONF N DRAIN KIND -> syscalls, context switches, task-clock for one JVM run
J=${JAVA:-/usr/lib/jvm/temurin-25-jdk-amd64/bin/java}
conf=$1 n=$2 drain=$3 kind=${4:-platform}
perf stat -x, -e raw_syscalls:sys_enter,context-switches,task-clock -o /tmp/ps.$$ \
  $J -Xms256m -Xmx256m -javaagent:/work/main/sdp-jdbc/target/sdp4j-agent.jar=conf=/root/scratch/drain/$conf.conf \
  -Dsdp4j.ucx.drain=$drain ${EXTRA} -cp /root/scratch/drain PingPong $n $kind 2>&1 | grep -v "^$" | tail -1
awk -F, '/raw_syscalls/{s=$1} /context-switches/{c=$1} /task-clock/{t=$1} END {printf "syscalls %s cs %s cpu_ms %.0f\n", s, c, t}' /tmp/ps.$$
rm -f /tmp/ps.$$
