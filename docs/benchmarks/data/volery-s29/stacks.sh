#!/usr/bin/env bash
# Executor stacks inside a capped 4 x 3 run of the 10 % global mix: jstack of six nodes' eyrie-replica thread
# once a second for 15 s (40 s uncapped warm-up, caps, then 20 s into a 60 s run). env: CLIENTS (64), OUT
set -uo pipefail
cd "$(dirname "$0")/../../../.."
D=${OUT:-/tmp/s29p}/stk; rm -rf $D
CAP_LATER=1 STORAGE=memory bench/volery-cluster.sh start 4 $D 6 > $D.connect 2>$D.err
C=$(cat $D.connect)
L=(--znodes 250 --subtrees 8 --client-per-subtree --owner-affinity --quiet --workload createdelete --global-percent 10 --bytes 100 --clients ${CLIENTS:-64} --warmup 0)
bench/volery-bench --connect $C "${L[@]}" --duration 40 --out /dev/null 2>/dev/null
bench/volery-cluster.sh cap $D
bench/volery-bench --connect $C "${L[@]}" --duration 60 --out $D.json 2>/dev/null &
sleep 20
for k in $(seq 1 15); do for n in 1 2 3 5 8 11; do jstack $(cat $D/node-$n/pid) 2>/dev/null | awk '/^"eyrie-replica/{p=1} p&&/^$/{p=0} p' | sed -n 2,14p | grep "at " | head -6 | tr -d '\t' | paste -sd'|' | sed "s/^/node-$n /"; done; sleep 1; done > $D.stacks
wait
bench/volery-cluster.sh stop $D >/dev/null 2>&1; pkill -9 -f io.volery.server.VoleryMain; true
