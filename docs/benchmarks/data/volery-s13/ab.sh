#!/bin/bash
# usage: ab.sh TAG RUNS  -- interleaved uncapped probes, deferral on/off
cd "$(dirname "$0")/../../../.."; OUT=${OUT:-/tmp/s13}; mkdir -p $OUT
for r in $(seq $2); do for mode in true false; do
  VOLERY_JAVA_OPTS="-Dvolery.deferTopLevel=$mode" WARM=6 docs/benchmarks/data/volery-s12/probe.sh $OUT/$1-$mode-$r 4 --workload createdelete --global-percent 10 --bytes 100 --clients 16 > $OUT/$1-$mode-$r.txt 2>$OUT/$1-$mode-$r.stderr
  bench/volery-cluster.sh stop $OUT/$1-$mode-$r >/dev/null 2>&1
done; done
echo fin > $OUT/$1.done
