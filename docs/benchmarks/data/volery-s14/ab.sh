#!/usr/bin/env bash
# usage: ab.sh DIR P LABEL : uncapped memory PxN, warm 2x20 s with the mix, then 20 s measured; CPU and writes per op over 10 s
set -euo pipefail
cd "$(dirname "$0")/../../../.."
D="$1"; P="$2"; LABEL="$3"
rm -rf "$D"
STORAGE=memory bench/volery-cluster.sh start $P "$D" > "$D.connect" 2>"$D.err"
C=$(cat "$D.connect")
L=(--znodes 250 --subtrees 8 --client-per-subtree --owner-affinity --quiet --workload createdelete --global-percent ${GP:-10} --clients ${CL:-16} --outstanding ${OUT:-25})
for i in 1 2; do bench/volery-bench --connect $C "${L[@]}" --warmup 0 --duration 20 --out /dev/null 2>/dev/null; done
snap() { local c=0 w=0; for h in $D/node-*; do p=$(cat $h/pid); c=$((c + $(awk '{print $14+$15}' /proc/$p/stat))); w=$((w + $(awk '/syscw/ {print $2}' /proc/$p/io))); done; echo "$c $w"; }
bench/volery-bench --connect $C "${L[@]}" --warmup 2 --duration 18 --out $D.json 2>/dev/null &
bp=$!
sleep 5; a=$(snap); sleep 10; b=$(snap); wait $bp
ops=$(python3 -c "import json;d=json.load(open('$D.json'));print(d['throughputOpsPerSec'])")
python3 -c "
a='$a'.split(); b='$b'.split(); ops=float('$ops')
print('$LABEL ops/s %.0f cluster-cpu %.2f cores, %.0f us/op, writes/op %.1f' % (ops, (int(b[0])-int(a[0]))/1000, (int(b[0])-int(a[0]))*10*1000/(ops*10), (int(b[1])-int(a[1]))/(ops*10)))"
bench/volery-cluster.sh stop "$D" >/dev/null 2>&1 || true
