#!/usr/bin/env bash
# curve.sh NAME PHASE... : one fresh durable 1 x 3 cluster (15 % caps after a 3 x 30 s uncapped warm-up at 64
# clients), then each PHASE for 40 s: "idle" (no client), "closed" (64 clients closed-loop) or a rate (64 clients
# paced at that many requests a second in all). Every thread's CPU (/proc, no profiler) and every node's cgroup
# throttling are read at seconds 5 and 35 of each phase. Writes /tmp/s49/NAME/ and prints one line per phase.
set -u
HERE="$(cd "$(dirname "$0")" && pwd)"
N=$1; shift; mkdir -p /tmp/s49; D=/tmp/s49/$N; cd "$HERE/../../../.."; rm -rf $D; mkdir -p $D
# SYSTEM=zk: three ZooKeeper 3.9.5 servers (forceSync=yes) under the same caps instead (their threads all count as "other")
if [ "${SYSTEM:-volery}" = zk ]; then NODES=zk-; CAP_LATER=1 bench/zk-ensemble.sh start 3 $D/c ${PCT:-15} > $D/connect 2>$D/start.err
else NODES=node-; CAP_LATER=1 STORAGE=durable bench/volery-cluster.sh start 1 $D/c ${PCT:-15} > $D/connect 2>$D/start.err; fi
C=$(cat $D/connect)
L=(--znodes 1000 --subtrees 8 --client-per-subtree --quiet --workload setdata --bytes 100)
for i in 1 2 3; do bench/volery-bench --connect $C "${L[@]}" --clients 64 --warmup 0 --duration 30 --out /dev/null 2>/dev/null; done
if [ $NODES = zk- ]; then bench/zk-ensemble.sh cap $D/c; else bench/volery-cluster.sh cap $D/c; fi
# PIN=1: every thread of node i on CPU (i - 1) mod 2 from now on (taskset -a), so that its hand-offs stay on one CPU
if [ "${PIN:-0}" = 1 ]; then i=0; for h in $D/c/$NODES*; do taskset -a -cp $((i % 2)) $(cat $h/pid) > /dev/null; i=$((i+1)); done; fi
snap() { # snap FILE: thread ticks, then per node "throttle node nr_periods nr_throttled throttled_ns"
  # every thread's utime+stime (ticks), summed by thread name (digits folded), as session 48's thcpu.sh
  for h in $D/c/$NODES*; do pid=$(cat $h/pid); for t in /proc/$pid/task/*; do
    echo "$(basename $h) $(sed 's/[0-9]\+/#/g; s/ /_/g' $t/comm 2>/dev/null) $(awk '{print $14+$15}' $t/stat 2>/dev/null)"
  done; done | awk '{s[$1" "$2]+=$3} END {for (k in s) print k, s[k]}' | sort > $1
  # voluntary context switches (a thread going to sleep: each is a wake-up later) and threads, by name
  for h in $D/c/$NODES*; do pid=$(cat $h/pid); for t in /proc/$pid/task/*; do
    echo "$(basename $h) $(sed 's/[0-9]\+/#/g; s/ /_/g' $t/comm 2>/dev/null) $(awk '$1=="voluntary_ctxt_switches:"{print $2}' $t/status 2>/dev/null)"
  done; done | awk '{s[$1" "$2]+=$3; n[$1" "$2]++} END {for (k in s) print "cs", k, s[k], n[k]}' >> $1
  for h in $D/c/$NODES*; do echo "throttle $(basename $h) $(awk '{print $2}' $(cat $h/cgroup)/cpu.stat | head -3 | tr '\n' ' ')"; done >> $1
  [ $NODES = node- ] && for h in $D/c/$NODES*; do timeout 2 bash -c "exec 3<>/dev/tcp/127.0.0.1/$(cat $h/client-port) && printf mntr >&3 && cat <&3" |
    awk -v n=$(basename $h) '$1 ~ /^(volery_frames_sent|volery_socket_writes|volery_ring_1_decided|zk_packets_received)$/ {print "mntr", n, $1, $2}'; done >> $1
}
# PERF=1: kernel counts of every node over the 30 s window (system calls, context switches; needs root)
perfwin() { [ "${PERF:-0}" = 1 ] || return 0
  for h in $D/c/$NODES*; do perf stat -x, -e raw_syscalls:sys_enter,context-switches,cpu-migrations -p $(cat $h/pid) -o $D/$1.perf-$(basename $h) -- sleep 30 & done; }
k=0
for P in "$@"; do
  k=$((k+1)); tag=$(printf "%02d-%s" $k $P)
  if [ "$P" = idle ]; then sleep 5; snap $D/$tag.a; perfwin $tag; sleep 30; snap $D/$tag.b; sleep 5
  else
    RA=(); [ "$P" != closed ] && RA=(--rate $P)
    bench/volery-bench --connect $C "${L[@]}" "${RA[@]}" --clients 64 --warmup 0 --duration 40 --out $D/$tag.json 2>/dev/null &
    sleep 5; snap $D/$tag.a; perfwin $tag; sleep 30; snap $D/$tag.b; wait
  fi
  python3 "$HERE/curve.py" $D $tag
done
if [ $NODES = zk- ]; then bench/zk-ensemble.sh stop 3 $D/c >/dev/null 2>&1; else bench/volery-cluster.sh stop $D/c >/dev/null 2>&1; fi
