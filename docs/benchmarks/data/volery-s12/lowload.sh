#!/usr/bin/env bash
# usage: lowload.sh DIR ROUNDS   4x3 memory cluster (EXTRA_CONFIG passes through), 2 clients x 1 outstanding, 50 % pairs
cd "$(dirname "$0")/../../../.."; D=$1; rm -rf $D
STORAGE=memory bench/volery-cluster.sh start 4 $D > $D.connect 2>$D.err; C=$(cat $D.connect)
L=(--znodes 250 --subtrees 8 --client-per-subtree --owner-affinity --quiet)
for i in $(seq $2); do bench/volery-bench --connect $C --workload createdelete --global-percent 50 --clients 2 --outstanding 1 --warmup 2 --duration 10 "${L[@]}" --out $D.json 2>/dev/null; python3 -c "
import json; r=json.load(open('$D.json')); print('ops/s', round(r['throughputOpsPerSec']), {k:(v['count'],round(v['p50']/1000,2),round(v['p99']/1000,2)) for k,v in r['byOperation'].items() if v['count']})"; done
bench/volery-cluster.sh stop $D >/dev/null 2>&1
