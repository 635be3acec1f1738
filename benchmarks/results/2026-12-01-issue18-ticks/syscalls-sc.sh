#!/bin/bash
# sc.sh CONF N THREADS: per-syscall counts, system-wide, 4 s in the measurement phase of Concurrency.roundTrips
J=/usr/lib/jvm/temurin-25-jdk-amd64/bin/java
conf=$1 n=$2 th=${3:-platform}
$J -Xms512m -Xmx512m -javaagent:/work/main/sdp-jdbc/target/sdp4j-agent.jar=conf=/root/scratch/drain/$conf.conf $EXTRA \
 -jar /work/main/benchmarks/target/benchmarks.jar 'Concurrency.roundTrips' -p connections=$n -p threads=$th -f 0 -wi 2 -w 3 -i 5 -r 3 -bm thrpt -tu s > /tmp/sc-$conf.out 2>&1 &
pid=$!
sleep ${DELAY:-15}
ev=""
for s in read write recvfrom sendto ppoll futex sched_yield epoll_wait epoll_ctl clock_nanosleep nanosleep poll recvmsg sendmsg ioctl; do ev="$ev,syscalls:sys_enter_$s"; done
perf stat -x, -a -e raw_syscalls:sys_enter,context-switches$ev -o /tmp/scs-$conf -- sleep 4
wait $pid
grep -E "^Concurrency" /tmp/sc-$conf.out
grep -v "^#" /tmp/scs-$conf | awk -F, 'NF>2 && $1>1000 {sub("syscalls:sys_enter_","",$3); printf "%s=%s ", $3, $1} END {print ""}'
