#!/usr/bin/env bash
# One partition capped at 6 % (memory): setData at 64 and 256 clients alternately on one cluster after a
# 40 s uncapped warm-up and a 30 s capped round; server CPU per request from /proc, GC from each node's log.
#   env: OUT (/tmp/s30p), SEQ ("64 256 64 256"), WORKLOAD (setdata), DUR (30), EXTRA_CONFIG, VOLERY_JAVA_OPTS
set -uo pipefail
cd "$(dirname "$0")/../../../.."
D=${OUT:-/tmp/s30p}/cap1p; rm -rf $D; mkdir -p $(dirname $D)
VOLERY_JAVA_OPTS="-Xlog:gc:file=NODE/gc.log ${VOLERY_JAVA_OPTS:-}" CAP_LATER=1 STORAGE=memory \
  bench/volery-cluster.sh start 1 $D 6 > $D.connect 2>$D.err
C=$(cat $D.connect)
L=(--znodes 250 --subtrees 8 --client-per-subtree --owner-affinity --quiet --workload ${WORKLOAD:-setdata} --bytes 100 --warmup 0)
cpu() { for h in $D/node-*; do awk '{printf "%d ", $14+$15}' /proc/$(cat $h/pid)/stat; done; }
# CPU ticks of each node's garbage-collector threads (G1's workers, marker, refinement, service)
jit() { for h in $D/node-*; do t=0; for d in /proc/$(cat $h/pid)/task/*; do case "$(cat $d/comm)" in C1*|C2*) t=$((t + $(awk '{print $14+$15}' $d/stat)));; esac; done; printf "%d " $t; done; }
gcc() { for h in $D/node-*; do t=0; for d in /proc/$(cat $h/pid)/task/*; do case "$(cat $d/comm)" in "GC Thread"*|G1*) t=$((t + $(awk '{print $14+$15}' $d/stat)));; esac; done; printf "%d " $t; done; }
gcms() { for h in $D/node-*; do grep -o 'Pause[^)]*) [0-9.]*M->[0-9.]*M([0-9.]*M) [0-9.]*ms' $h/gc.log | awk '{s+=$NF+0} END {printf "%d ", s}'; done; }
bench/volery-bench --connect $C "${L[@]}" --clients 64 --duration 40 --out /dev/null 2>/dev/null
bench/volery-cluster.sh cap $D
bench/volery-bench --connect $C "${L[@]}" --clients 64 --duration 30 --out /dev/null 2>/dev/null
# line counts of each node's server.log at each round's start (with VOLERY_JAVA_OPTS=-XX:+PrintCompilation: what the JIT did when)
mark() { for h in $D/node-*; do echo "$1 $(basename $h) $(wc -l < $h/server.log)"; done >> $D.marks; }
r=0
for c in ${SEQ:-64 256 64 256}; do
  r=$((r + 1)); mark "round$r-$c"
  c0=$(cpu); g0=$(gcms); q0=$(gcc); j0=$(jit)
  bench/volery-bench --connect $C "${L[@]}" --clients $c --duration ${DUR:-30} --out $D.$c.json 2>/dev/null
  c1=$(cpu); g1=$(gcms); q1=$(gcc); j1=$(jit)
  python3 - "$c" "$c0" "$c1" "$g0" "$g1" "$D.$c.json" "${DUR:-30}" "$q0" "$q1" "$j0" "$j1" <<'PY'
import json, sys
c, c0, c1, g0, g1, f, dur, q0, q1, j0, j1 = sys.argv[1:]
j = [int(b) - int(a) for a, b in zip(j0.split(), j1.split())]
q = [int(b) - int(a) for a, b in zip(q0.split(), q1.split())]
d = json.load(open(f)); n = d['throughputOpsPerSec']; l = d['latencyMicros']
cpu = [int(b) - int(a) for a, b in zip(c0.split(), c1.split())]
gc = [int(b) - int(a) for a, b in zip(g0.split(), g1.split())]
print(f"clients {c}: {round(n)} ops/s p50 {round(l['p50']/1000)} ms p99 {round(l['p99']/1000)} ms; "
      f"server CPU us/op {round(sum(cpu)*10000/(n*int(dur)))}; node CPU ms/s {[round(x*10/int(dur)) for x in cpu]}; "
      f"GC pause ms {gc}; GC threads' CPU share {[round(100*a/max(1,b)) for a, b in zip(q, cpu)]} %; JIT {[round(100*a/max(1,b)) for a, b in zip(j, cpu)]} %; errors {d.get('errors')}")
PY
done
mark end
bench/volery-cluster.sh stop $D >/dev/null 2>&1; pkill -9 -f io.volery.server.VoleryMain; true
