#!/bin/bash
# usage: [LOOP=10s] [WU=30] [DU=20] prof4.sh P DIR [bench opts]
cd /work/main; P=$1; D=$2; shift 2
export STORAGE=memory
c=$(VOLERY_JAVA_OPTS="-agentpath:/tmp/apdl/x/linux-x64/libasyncProfiler.so=start,event=itimer,interval=1ms,threads,loop=${LOOP:-10s},file=NODE/cpu-%n.txt,collapsed" bench/volery-cluster.sh start $P $D 2>/dev/null)
bench/volery-bench --connect "$c" --znodes 1000 --subtrees 8 --client-per-subtree --warmup ${WU:-30} --duration ${DU:-20} --quiet --out $D/run.json "$@" > $D/bench.log 2>&1
for h in $D/node-*; do echo "$(basename $h) $(timeout 2 bash -c "exec 3<>/dev/tcp/127.0.0.1/$(cat $h/client-port) && printf mntr >&3 && cat <&3" 2>/dev/null | grep -E 'ring_[0-9]+_(instances|decided|skips|coordinator)|delivered' | tr '\n' ' ')" ; done > $D/mntr.txt
bench/volery-cluster.sh stop $D >/dev/null 2>&1
python3 -c "import json; r=json.load(open('$D/run.json')); print('ops/s', r.get('throughput', r.get('opsPerSec')))"
