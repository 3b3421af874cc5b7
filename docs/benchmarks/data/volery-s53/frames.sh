#!/usr/bin/env bash
# session 53: frames by type per request, 4 x 3 memory, capped after warm-up; FrameTally build
set -uo pipefail
cd /tmp/meas
D="$1"; rm -rf "$D"; mkdir -p "$(dirname $D)"
export VOLERY_JAVA_OPTS="-Dmeas.file=NODE/frames.txt"
CAP_LATER=1 STORAGE=memory bench/volery-cluster.sh start ${P:-4} "$D" ${PCT:-6} > "$D.connect" 2>"$D.err"
C=$(cat "$D.connect")
L=(--znodes 250 --subtrees 8 --client-per-subtree --owner-affinity --quiet --workload createdelete --global-percent ${G:-10} --bytes 100 --clients 64 --warmup 0)
for i in 1 2 3 4; do bench/volery-bench --connect $C "${L[@]}" --duration 30 --out /dev/null 2>/dev/null; done
[ "${PCT:-6}" = 0 ] || bench/volery-cluster.sh cap "$D"
bench/volery-bench --connect $C "${L[@]}" --duration 20 --out /dev/null 2>/dev/null
bench/volery-bench --connect $C "${L[@]}" --duration 45 --out $D.json 2>/dev/null &
sleep 15; t0=$(date +%s%3N); for h in $D/node-*; do cat /proc/$(cat $h/pid)/stat | awk '{print $14+$15}'; done > $D.cpu0
sleep 20; t1=$(date +%s%3N); for h in $D/node-*; do cat /proc/$(cat $h/pid)/stat | awk '{print $14+$15}'; done > $D.cpu1
wait
echo "$t0 $t1" > $D.window
bench/volery-cluster.sh stop "$D"
python3 /tmp/meas/m/tally.py "$D"
