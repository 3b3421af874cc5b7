#!/usr/bin/env bash
# One partition uncapped (memory): setData at 64 and 256 clients, alternately, on one cluster after a 30 s
# warm-up; server CPU per request from the nodes' /proc stat. Whether the capped collapse at 256 clients shows uncapped.
set -uo pipefail
cd "$(dirname "$0")/../../../.."
D=${OUT:-/tmp/s29p}/unc; rm -rf $D
STORAGE=memory bench/volery-cluster.sh start 1 $D > $D.connect 2>$D.err
C=$(cat $D.connect)
L=(--znodes 250 --subtrees 8 --client-per-subtree --owner-affinity --quiet --workload setdata --bytes 100 --warmup 0)
cpu() { t=0; for h in $D/node-*; do t=$((t + $(awk '{print $14+$15}' /proc/$(cat $h/pid)/stat))); done; echo $t; }
bench/volery-bench --connect $C "${L[@]}" --clients 64 --duration 30 --out /dev/null 2>/dev/null
for c in 64 256 64 256; do
  c0=$(cpu); bench/volery-bench --connect $C "${L[@]}" --clients $c --duration 20 --out $D.$c.json 2>/dev/null; c1=$(cpu)
  python3 -c "import json;d=json.load(open('$D.$c.json'));n=d['throughputOpsPerSec'];print('uncapped 1p setData clients $c', round(n), 'ops/s p50', round(d['latencyMicros']['p50']/1000), 'ms, server CPU us/op', round(($c1-$c0)*10000/ (n*20)))"
done
bench/volery-cluster.sh stop $D >/dev/null 2>&1; pkill -9 -f io.volery.server.VoleryMain; true
