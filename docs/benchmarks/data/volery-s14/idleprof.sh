#!/usr/bin/env bash
set -euo pipefail
cd "$(dirname "$0")/../../../.."
D="$1"; P="$2"
rm -rf "$D"
VOLERY_JAVA_OPTS="-agentpath:${ASYNC_PROFILER:?path to libasyncProfiler.so (tools.profiler:async-profiler 3.0 from Maven Central)}=start,event=itimer,interval=1ms,loop=15s,file=NODE/cpu-%n.txt,collapsed" STORAGE=memory bench/volery-cluster.sh start $P "$D" > "$D.connect" 2>"$D.err"
C=$(cat "$D.connect")
L=(--znodes 250 --subtrees 8 --client-per-subtree --owner-affinity --quiet)
bench/volery-bench --connect $C --workload createdelete --global-percent 10 --bytes 100 --clients 16 --warmup 0 --duration 20 "${L[@]}" --out /dev/null 2>/dev/null
sleep 50
bench/volery-cluster.sh stop "$D" >/dev/null 2>&1 || true
