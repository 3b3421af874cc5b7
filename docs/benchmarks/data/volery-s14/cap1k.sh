#!/usr/bin/env bash
set -euo pipefail
cd "$(dirname "$0")/../../../.."
D="$1"; B="$2"; P="${P:-1}"; PCT="${PCT:-15}"
rm -rf "$D"
VOLERY_JAVA_OPTS="${VJO:-}" CAP_LATER=1 STORAGE=${STORAGE:-durable} bench/volery-cluster.sh start $P "$D" $PCT > "$D.connect" 2>"$D.err"
C=$(cat "$D.connect")
L=(--znodes 1000 --quiet ${EXTRA_BENCH:-})
bench/volery-bench --connect $C --workload setdata --bytes $B --clients 64 --warmup 0 --duration ${WARM:-60} "${L[@]}" --out /dev/null 2>/dev/null
bench/volery-cluster.sh cap "$D"
snap() { for h in $D/node-*; do p=$(cat $h/pid); g=$(cat $h/cgroup); echo "$(basename $h) $(awk '{print $14+$15}' /proc/$p/stat) $(grep -E 'nr_periods|nr_throttled' $g/cpu.stat | awk '{print $2}' | paste -sd' ')"; done; }
bench/volery-bench --connect $C --workload setdata --bytes $B --clients 64 --warmup 2 --duration 18 "${L[@]}" --out "$D.run1.json" 2>/dev/null &
bp=$!
sleep 5; snap > $D.sa; sleep 10; snap > $D.sb; wait $bp
paste $D.sa $D.sb | awk '{printf "%s cpu %d ms/s periods %d throttled %d\n", $1, ($6-$2)*10/10, $7-$3, $8-$4}'
python3 -c "import json;d=json.load(open('$D.run1.json'));print('ops/s', d['throughputOpsPerSec'])"
bench/volery-cluster.sh stop "$D" >/dev/null 2>&1 || true
