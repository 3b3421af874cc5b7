#!/usr/bin/env bash
# usage: prof-global.sh DIR WORKLOAD_ARGS...   uncapped 4x3 memory cluster, profiler in 10 s chunks,
# warm-up 3 x 20 s of the workload, then 20 s measured with per-node CPU from /proc
set -euo pipefail
cd /work/main
D="$1"; shift
rm -rf "$D"
STORAGE=memory VOLERY_JAVA_OPTS="-agentpath:/tmp/ap/linux-x64/libasyncProfiler.so=start,event=itimer,interval=1ms,loop=10s,file=NODE/cpu-%n.txt,collapsed" bench/volery-cluster.sh start 4 "$D" > "$D.connect" 2>"$D.err"
C=$(cat "$D.connect"); pids=$(bench/volery-cluster.sh pids "$D" | tr '\n' ' ')
L=(--znodes 250 --subtrees 8 --client-per-subtree --owner-affinity --quiet)
for i in 1 2 3; do bench/volery-bench --connect $C "$@" --warmup 0 --duration 20 "${L[@]}" --out /dev/null 2>/dev/null; done
bench/volery-bench --connect $C "$@" --warmup 3 --duration 20 "${L[@]}" --out "$D.json" 2>/dev/null &
b=$!
sleep 8; t0=$(for p in $pids; do awk '{print $14+$15}' /proc/$p/stat; done | paste -sd+ | bc); date +%s > "$D.t0"
sleep 10; t1=$(for p in $pids; do awk '{print $14+$15}' /proc/$p/stat; done | paste -sd+ | bc); date +%s > "$D.t1"
wait $b
echo "cluster cores $(echo "($t1-$t0)/100/10" | bc -l)" | tee "$D.cpu"
python3 -c "
import json; r=json.load(open('$D.json')); print('ops/s', round(r['throughputOpsPerSec']), {k:(v['count'],round(v['p50']/1000,1)) for k,v in r['byOperation'].items() if v['count']})" | tee -a "$D.cpu"
bench/volery-cluster.sh stop "$D" >/dev/null 2>&1
