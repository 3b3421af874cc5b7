#!/usr/bin/env bash
# Overload probe: a fresh 4 x 3 memory cluster, 3 x 30 s uncapped warm-up, then capped rounds of one
# workload at growing client counts; after each round, the cluster-wide deltas of every numeric mntr
# counter (summed over the 12 nodes) and the CPU each node used.
#   overload.sh DIR [WORKLOAD ARGS...]   env: P (4), PCT (6), CLIENTS ("64 512"), DUR (20), VJO
set -euo pipefail
cd "$(dirname "$0")/../../../.."
D="$1"; shift; P="${P:-4}"; PCT="${PCT:-6}"
W=("$@"); [ ${#W[@]} -gt 0 ] || W=(--workload setdata --bytes 100)
rm -rf "$D"
VOLERY_JAVA_OPTS="${VJO:-}" CAP_LATER=1 STORAGE=memory bench/volery-cluster.sh start $P "$D" $PCT > "$D.connect" 2>"$D.err"
C=$(cat "$D.connect")
L=(--znodes 250 --subtrees 8 --client-per-subtree --owner-affinity --quiet)
for i in 1 2 3; do bench/volery-bench --connect $C "${L[@]}" "${W[@]}" --clients 64 --warmup 0 --duration 30 --out /dev/null 2>/dev/null; done
bench/volery-cluster.sh cap "$D"
bench/volery-bench --connect $C "${L[@]}" "${W[@]}" --clients 64 --warmup 0 --duration 20 --out /dev/null 2>/dev/null
snap() { for h in $D/node-*; do python3 - $(cat $h/client-port) <<'PY'
import socket,sys
s=socket.create_connection(('127.0.0.1',int(sys.argv[1]))); s.sendall(b'mntr'); out=b''
while True:
    b=s.recv(65536)
    if not b: break
    out+=b
for l in out.decode().splitlines():
    if '\t' in l:
        k,v=l.split('\t',1)
        try: print(k, float(v))
        except ValueError: pass
PY
done | awk '{a[$1]+=$2} END {for (k in a) print k, a[k]}' | sort; }
# per node: CPU ticks (1/100 s), cgroup periods, throttled periods
cpu() { for h in $D/node-*; do pid=$(cat $h/pid); g=$(cat $h/cgroup)
  echo "$(awk '{print $14+$15}' /proc/$pid/stat) $(awk '$1=="nr_periods"{p=$2} $1=="nr_throttled"{t=$2} END{print p, t}' $g/cpu.stat)"; done; }
for c in ${CLIENTS:-64 512}; do
  snap > "$D.before"; cpu > "$D.cpu0"; t0=$(date +%s.%N)
  bench/volery-bench --connect $C "${L[@]}" "${W[@]}" --clients $c --warmup 0 --duration ${DUR:-20} --out $D.c$c.json 2>/dev/null &
  bench_pid=$!
  # a window inside the measured seconds (connects done, drain not begun): MID_FROM s after start, MID s long
  sleep "${MID_FROM:-10}"; cpu > "$D.mid0"; m0=$(date +%s.%N); sleep "${MID:-10}"; cpu > "$D.mid1"; m1=$(date +%s.%N)
  wait $bench_pid
  snap > "$D.after"; cpu > "$D.cpu1"; t1=$(date +%s.%N)
  ops=$(python3 -c "import json;d=json.load(open('$D.c$c.json'));print(round(d['throughputOpsPerSec']), round(d['latencyMicros']['p50']/1000))")
  echo "== $c clients: ops/s p50 $ops"
  echo "per node over $(echo "$t1 - $t0" | bc) s (bench start to end, connects and drain included): CPU ms/s, throttled % of periods"
  paste -d' ' "$D.cpu0" "$D.cpu1" | awk -v s="$(echo "$t1 - $t0" | bc)" '{printf "  %d/%d%%", ($4-$1)*10/s, (($5-$2)>0 ? 100*($6-$3)/($5-$2) : 0)} END {print ""}'

  echo "per node from second ${MID_FROM:-10} for $(echo "$m1 - $m0" | bc) s of the run: CPU ms/s, throttled % of periods"
  paste -d' ' "$D.mid0" "$D.mid1" | awk -v s="$(echo "$m1 - $m0" | bc)" '{printf "  %d/%d%%", ($4-$1)*10/s, (($5-$2)>0 ? 100*($6-$3)/($5-$2) : 0)} END {print ""}'
  join "$D.before" "$D.after" | awk '{d=$3-$2; if (d!=0) printf "  %s %+g\n", $1, d}'
done
bench/volery-cluster.sh stop "$D" >/dev/null 2>&1 || true
