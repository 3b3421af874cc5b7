#!/usr/bin/env bash
# Where each node's CPU goes inside the measured seconds of a capped 4 x 3 run: session 15's overload.sh
# (fresh memory cluster, 3 x 30 s uncapped warm-up, then one capped round per client count) plus
# async-profiler (itimer, collapsed stacks) attached to every node for the in-run window.
#   probe.sh DIR [WORKLOAD ARGS...]   env: P (4), PCT (6), STORAGE (memory), CLIENTS (64), DUR (30), MID_FROM (12), MID (12), VJO,
#                                     PROFILE (1; 0: no profiler), AP_EXTRA (more profiler options, e.g. ",ann"; session 48)
# (The syscall and ring lines were added late in session 16; their first runs read the CPU window wrongly,
# an mntr round of 12 capped nodes taking seconds inside it, and are not kept. Not rerun since the fix.)
# Also over the same window: write and read syscalls of every node (/proc/PID/io) and the decided
# instances of every ring (mntr volery_ring_R_decided, from the ring's first member).
# (jcmd parses name=value arguments: the agent's options go in inner quotes.)
# async-profiler: mvn dependency:get -Dartifact=tools.profiler:async-profiler:3.0 (the jar holds the library).
set -euo pipefail
cd "$(dirname "$0")/../../../.."
D="$1"; shift; P="${P:-4}"; PCT="${PCT:-6}"
W=("$@"); [ ${#W[@]} -gt 0 ] || W=(--workload setdata --bytes 100)
AP=/tmp/async-profiler-3.0
if [ ! -f $AP/linux-x64/libasyncProfiler.so ]; then
  mkdir -p $AP && (cd $AP && unzip -qo ~/.m2/repository/tools/profiler/async-profiler/3.0/async-profiler-3.0.jar)
fi
rm -rf "$D"
# the library is loaded at start (no profiling yet): attaching it to a running JVM deoptimised its code and
# sent the capped nodes back to C2 for the rest of the run
AGENT=""; [ "${PROFILE:-1}" = 1 ] && AGENT="-agentpath:$AP/linux-x64/libasyncProfiler.so"
VOLERY_JAVA_OPTS="${VJO:-} $AGENT" CAP_LATER=1 STORAGE=${STORAGE:-memory} bench/volery-cluster.sh start $P "$D" $PCT > "$D.connect" 2>"$D.err"
C=$(cat "$D.connect")
L=(--znodes 250 --subtrees 8 --client-per-subtree --owner-affinity --quiet)
for i in 1 2 3; do bench/volery-bench --connect $C "${L[@]}" "${W[@]}" --clients 64 --warmup 0 --duration 30 --out /dev/null 2>/dev/null; done
bench/volery-cluster.sh cap "$D"
bench/volery-bench --connect $C "${L[@]}" "${W[@]}" --clients 64 --warmup 0 --duration 20 --out /dev/null 2>/dev/null
cpu() { for h in $D/node-*; do pid=$(cat $h/pid); g=$(cat $h/cgroup)
  echo "$(awk '{print $14+$15}' /proc/$pid/stat) $(awk '$1=="nr_periods"{p=$2} $1=="nr_throttled"{t=$2} END{print p, t}' $g/cpu.stat)"; done; }
io() { for h in $D/node-*; do awk '$1=="syscr:"{r=$2} $1=="syscw:"{w=$2} END{print r, w}' /proc/$(cat $h/pid)/io; done; }
rings() { for h in $D/node-*; do python3 - $(cat $h/client-port) <<'PY'
import socket,sys
s=socket.create_connection(('127.0.0.1',int(sys.argv[1]))); s.sendall(b'mntr'); out=b''
while True:
    b=s.recv(65536)
    if not b: break
    out+=b
for l in out.decode().splitlines():
    k,_,v=l.partition('\t')
    if k.startswith('volery_ring_') and k.endswith('_decided'): print(k, v)
PY
done | sort -u -k1,1; }
prof() { [ "${PROFILE:-1}" = 1 ] || return 0; for h in $D/node-*; do jcmd "$(cat $h/pid)" JVMTI.agent_load $AP/linux-x64/libasyncProfiler.so "\"$1\"" >/dev/null 2>&1 || echo "profiler $1 failed on $h" >&2; done; }
for c in ${CLIENTS:-64}; do
  bench/volery-bench --connect $C "${L[@]}" "${W[@]}" --clients $c --warmup 0 --duration ${DUR:-30} --out $D.c$c.json 2>/dev/null &
  bench_pid=$!
  sleep "${MID_FROM:-12}"; prof "start,event=itimer,interval=2ms,threads${AP_EXTRA:-}"
  # each window has its own clock: an mntr of 12 capped nodes can take seconds
  r0=$(date +%s.%N); rings > "$D.rings0"; io > "$D.io0"; cpu > "$D.mid0"; m0=$(date +%s.%N)
  sleep "${MID:-12}"; cpu > "$D.mid1"; m1=$(date +%s.%N); io > "$D.io1"; rings > "$D.rings1"; r1=$(date +%s.%N)
  [ "${PROFILE:-1}" = 1 ] && for h in $D/node-*; do jcmd "$(cat $h/pid)" JVMTI.agent_load $AP/linux-x64/libasyncProfiler.so "\"stop,collapsed${AP_EXTRA:-},file=$h/c$c.collapsed\"" >/dev/null 2>&1 || true; done
  wait $bench_pid
  ops=$(python3 -c "import json;d=json.load(open('$D.c$c.json'));print(round(d['throughputOpsPerSec']), round(d['latencyMicros']['p50']/1000))")
  echo "== $c clients: ops/s p50 $ops"
  echo "per node from second ${MID_FROM:-12} for $(echo "$m1 - $m0" | bc) s of the run: CPU ms/s, throttled % of periods"
  paste -d' ' "$D.mid0" "$D.mid1" | awk -v s="$(echo "$m1 - $m0" | bc)" '{printf "  %d/%d%%", ($4-$1)*10/s, (($5-$2)>0 ? 100*($6-$3)/($5-$2) : 0)} END {print ""}'
  echo "per node from before to after the CPU window ($(echo "$r1 - $r0" | bc) s): read / write syscalls per second"
  paste -d' ' "$D.io0" "$D.io1" | awk -v s="$(echo "$r1 - $r0" | bc)" '{printf "  %d/%d", ($3-$1)/s, ($4-$2)/s; r+=$3-$1; w+=$4-$2} END {printf "\n  all nodes: %d reads/s, %d writes/s\n", r/s, w/s}'
  echo "rings in that window: instances decided per second"
  join "$D.rings0" "$D.rings1" | awk -v s="$(echo "$r1 - $r0" | bc)" '{printf "  %s %.1f/s\n", $1, ($3-$2)/s}'
done
grep -h "ring\." "$D/volery.cfg" | sed 's/^/  cfg: /'
bench/volery-cluster.sh stop "$D" >/dev/null 2>&1 || true
