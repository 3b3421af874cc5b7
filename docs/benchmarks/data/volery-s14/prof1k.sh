#!/usr/bin/env bash
# usage: prof1k.sh DIR BYTES : 1p durable cluster, async-profiler, uncapped warm 60 s, cap 15 %, 2 x 20 s capped
set -euo pipefail
cd "$(dirname "$0")/../../../.."
D="$1"; B="$2"
rm -rf "$D"
VOLERY_JAVA_OPTS="${VJO:--agentpath:${ASYNC_PROFILER:?path to libasyncProfiler.so (tools.profiler:async-profiler 3.0 from Maven Central)}=start,event=itimer,interval=1ms,loop=20s,file=NODE/cpu-%n.txt,collapsed}" CAP_LATER=1 STORAGE=durable bench/volery-cluster.sh start 1 "$D" 15 > "$D.connect" 2>"$D.err"
C=$(cat "$D.connect")
L=(--znodes 1000 --quiet)
bench/volery-bench --connect $C --workload setdata --bytes $B --clients 64 --warmup 0 --duration ${WARM:-60} "${L[@]}" --out /dev/null 2>/dev/null
bench/volery-cluster.sh cap "$D"
for i in 1 2 3; do bench/volery-bench --connect $C --workload setdata --bytes $B --clients 64 --warmup 2 --duration 18 "${L[@]}" --out "$D.run$i.json" 2>/dev/null; done
for i in 1 2 3; do python3 -c "import json;d=json.load(open('$D.run$i.json'));print('run $i', d.get('throughput') or {k:v for k,v in d.items() if 'ops' in k.lower() or 'through' in k.lower()})"; done
bench/volery-cluster.sh stop "$D" >/dev/null 2>&1 || true
