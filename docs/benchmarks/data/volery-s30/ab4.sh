#!/usr/bin/env bash
# A/B of one cluster-file setting on the capped 4 x 3 cluster: fresh memory cluster, 40 s uncapped, caps,
# 30 s capped round, 30 s measured; "server CPU us/op": the nodes' CPU (/proc stat) from before to after the measured
# volery-bench process (its start, its 64 sessions' set-up and close included) over 30 s of requests: comparable
# between rows only, not a per-request cost.
#   ab4.sh NAME "EXTRA_CONFIG"   env: WORKLOAD (setdata), WARGS (--bytes 100), P (4), CLIENTS (64), OUT (/tmp/s30p)
set -uo pipefail
cd "$(dirname "$0")/../../../.."
D=${OUT:-/tmp/s30p}/ab-$1; rm -rf $D; mkdir -p $(dirname $D)
EXTRA_CONFIG="$2" CAP_LATER=1 STORAGE=memory bench/volery-cluster.sh start ${P:-4} $D 6 > $D.connect 2>$D.err
C=$(cat $D.connect)
L=(--znodes 250 --subtrees 8 --client-per-subtree --owner-affinity --quiet --workload ${WORKLOAD:-setdata} ${WARGS:---bytes 100} --clients ${CLIENTS:-64} --warmup 0)
cpu() { t=0; for h in $D/node-*; do t=$((t + $(awk '{print $14+$15}' /proc/$(cat $h/pid)/stat))); done; echo $t; }
bench/volery-bench --connect $C "${L[@]}" --duration 40 --out /dev/null 2>/dev/null
bench/volery-cluster.sh cap $D
bench/volery-bench --connect $C "${L[@]}" --duration 30 --out /dev/null 2>/dev/null
c0=$(cpu)
bench/volery-bench --connect $C "${L[@]}" --duration 30 --out $D.json 2>/dev/null
c1=$(cpu)
python3 -c "import json;d=json.load(open('$D.json'));l=d['latencyMicros'];n=d['throughputOpsPerSec'];print('$1', round(n), 'ops/s p50', round(l['p50']/1000), 'p99', round(l['p99']/1000), 'ms, server CPU us/op', round(($c1-$c0)*10000/(n*30)))"
grep -h "state of position\|cannot replay\|cannot answer ask" $D/node-*/server.log | cut -c1-200 | head -3
bench/volery-cluster.sh stop $D >/dev/null 2>&1; pkill -9 -f io.volery.server.VoleryMain; true
