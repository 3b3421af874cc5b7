#!/usr/bin/env bash
# async-profiler (itimer, collapsed, 10 s chunks) on a capped 1p memory cluster: 256 then 64 clients
set -u
cd /tmp/s34c
source bench/lib.sh
for c in 256 64; do
  D=/tmp/s34prof/c$c; rm -rf $D; mkdir -p $D
  connect=$(CAP_LATER=1 STORAGE=memory VOLERY_JAVA_OPTS="-agentpath:/tmp/apdl/x/linux-x64/libasyncProfiler.so=start,event=itimer,interval=1ms,loop=10s,file=NODE/cpu-%n.txt,collapsed" bench/volery-cluster.sh start 1 $D/servers 6)
  JIT_CLIENTS=$c jit_warmup "$connect" 60 --znodes 1000 --subtrees 8 --client-per-subtree
  bench/volery-cluster.sh cap $D/servers
  date +%s > $D/capped-at
  bench/volery-bench --connect "$connect" --znodes 1000 --subtrees 8 --client-per-subtree --workload setdata --bytes 100 \
     --clients $c --outstanding 25 --warmup 20 --duration 40 --out $D/run.json > $D/progress.log 2>&1
  date +%s > $D/done-at
  bench/volery-cluster.sh stop $D/servers
done
echo finished > /tmp/s34prof/done
