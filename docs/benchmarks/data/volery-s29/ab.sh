#!/usr/bin/env bash
# A/B of one cluster-file setting on the capped 4 x 3 global mix: fresh memory cluster, 40 s uncapped,
# caps, 30 s capped round, 30 s measured.   ab.sh NAME "EXTRA_CONFIG"   env: P (4), CLIENTS (64), OUT
set -uo pipefail
cd "$(dirname "$0")/../../../.."
D=${OUT:-/tmp/s29p}/ab-$1; rm -rf $D
EXTRA_CONFIG="$2" CAP_LATER=1 STORAGE=memory bench/volery-cluster.sh start ${P:-4} $D 6 > $D.connect 2>$D.err
C=$(cat $D.connect)
L=(--znodes 250 --subtrees 8 --client-per-subtree --owner-affinity --quiet --workload createdelete --global-percent 10 --bytes 100 --clients ${CLIENTS:-64} --warmup 0)
bench/volery-bench --connect $C "${L[@]}" --duration 40 --out /dev/null 2>/dev/null
bench/volery-cluster.sh cap $D
bench/volery-bench --connect $C "${L[@]}" --duration 30 --out /dev/null 2>/dev/null
bench/volery-bench --connect $C "${L[@]}" --duration 30 --out $D.json 2>/dev/null
python3 -c "import json;d=json.load(open('$D.json'));l=d['latencyMicros'];print('$1', round(d['throughputOpsPerSec']), 'p50', round(l['p50']/1000), 'p99', round(l['p99']/1000))"
bench/volery-cluster.sh stop $D >/dev/null 2>&1; pkill -9 -f io.volery.server.VoleryMain; rm -rf $D; true
