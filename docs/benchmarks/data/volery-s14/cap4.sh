#!/usr/bin/env bash
# usage: cap4.sh DIR P : memory PxN cluster, warm uncapped, cap PCT, 2 capped runs, CPU per node
set -euo pipefail
cd "$(dirname "$0")/../../../.."
D="$1"; P="$2"; PCT="${PCT:-6}"; W="${W:-setdata}"; B="${B:-100}"
rm -rf "$D"
VOLERY_JAVA_OPTS="${VJO:-}" CAP_LATER=1 STORAGE=${STORAGE:-memory} bench/volery-cluster.sh start $P "$D" $PCT > "$D.connect" 2>"$D.err"
C=$(cat "$D.connect")
L=(--znodes 250 --subtrees 8 --client-per-subtree --owner-affinity --quiet --bytes $B)
[ "$W" = createdelete ] && L+=(--global-percent 10)
bench/volery-bench --connect $C --workload $W --clients ${CL:-64} --warmup 0 --duration ${WARM:-60} "${L[@]}" --out /dev/null 2>/dev/null
bench/volery-cluster.sh cap "$D"
bench/volery-bench --connect $C --workload $W --clients ${CL:-64} --warmup 0 --duration 20 "${L[@]}" --out /dev/null 2>/dev/null
snap() { for h in $D/node-*; do p=$(cat $h/pid); g=$(cat $h/cgroup); echo "$(awk '{print $14+$15}' /proc/$p/stat) $(grep -E 'nr_periods|nr_throttled' $g/cpu.stat | awk '{print $2}' | paste -sd' ')"; done; }
for i in 1 2; do
bench/volery-bench --connect $C --workload $W --clients ${CL:-64} --warmup 2 --duration 18 "${L[@]}" --out "$D.run$i.json" 2>/dev/null &
bp=$!
sleep 5; snap > $D.sa; sleep 10; snap > $D.sb; wait $bp
echo "run $i ops/s $(python3 -c "import json;d=json.load(open('$D.run$i.json'));print(round(d['throughputOpsPerSec']))") node cpu ms/s: $(paste $D.sa $D.sb | awk '{printf "%d ", ($4-$1)}') throttled%: $(paste $D.sa $D.sb | awk '{printf "%d ", 100*($6-$3)/($5-$2+1)}')"
done
bench/volery-cluster.sh stop "$D" >/dev/null 2>&1 || true
