#!/bin/bash
# usage: lat.sh TAG  -- capped (6 %) low-load latency of global ops, deferral on/off, after 60 s uncapped warm-up
cd "$(dirname "$0")/../../../.."; OUT=${OUT:-/tmp/s13}; mkdir -p $OUT
for mode in true false; do
  D=$OUT/$1-$mode; rm -rf $D
  STORAGE=memory CAP_LATER=1 VOLERY_JAVA_OPTS="-Dvolery.deferTopLevel=$mode" bench/volery-cluster.sh start 4 $D 6 > $D.connect 2>$D.err; C=$(cat $D.connect)
  L=(--znodes 250 --subtrees 8 --client-per-subtree --owner-affinity --quiet)
  for i in 1 2 3; do bench/volery-bench --connect $C --workload createdelete --global-percent 10 --clients 16 --warmup 0 --duration 20 "${L[@]}" --out /dev/null >/dev/null 2>&1; done
  bench/volery-cluster.sh cap $D
  for i in 1 2 3; do bench/volery-bench --connect $C --workload createdelete --global-percent 50 --clients 2 --outstanding 1 --warmup 2 --duration 15 "${L[@]}" --out $D.json >/dev/null 2>&1; python3 -c "
import json; r=json.load(open('$D.json')); print('$mode', 'ops/s', round(r['throughputOpsPerSec']), {k:(v['count'],round(v['p50']/1000,1),round(v['p99']/1000,1)) for k,v in r['byOperation'].items() if v['count']})"; done
  bench/volery-cluster.sh stop $D >/dev/null 2>&1
done > $OUT/$1.txt
echo fin >> $OUT/$1.txt
