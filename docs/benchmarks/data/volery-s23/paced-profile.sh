#!/usr/bin/env bash
# (Session 23; run from a copy of the repository, nothing else running.) paced-counts.sh's procedure with
# every node profiled instead of counted: async-profiler (AP_LIB, itimer 1 ms, per-thread collapsed
# stacks) attached with jcmd for seconds 15-35 of a 45 s closed-loop run and of a 45 s run paced at RATE
# (default 75 % of the closed loop's throughput). Writes DIR.{closed,paced}.json and
# DIR/{closed,paced}/node-N/c.collapsed; cpu-by-category.py (session 17) reads them.
#   paced-profile.sh DIR   env: AP_LIB (required), P (1), PCT (15), STORAGE (durable), CLIENTS (64), RATE
set -uo pipefail
cd "$(dirname "$0")/../../../.."
D="$1"; rm -rf "$D"; : "${AP_LIB:?path of libasyncProfiler.so}"
CAP_LATER=1 STORAGE=${STORAGE:-durable} bench/volery-cluster.sh start ${P:-1} "$D" ${PCT:-15} > "$D.connect" 2>"$D.err"
C=$(cat "$D.connect")
L=(--znodes 250 --subtrees 8 --client-per-subtree --owner-affinity --quiet --workload setdata --bytes 100 --clients ${CLIENTS:-64} --warmup 0)
for i in 1 2 3; do bench/volery-bench --connect $C "${L[@]}" --duration 30 --out /dev/null 2>/dev/null; done
bench/volery-cluster.sh cap "$D"
bench/volery-bench --connect $C "${L[@]}" --duration 20 --out /dev/null 2>/dev/null
window() { # NAME [volery-bench options]
  local n="$1"; shift
  bench/volery-bench --connect $C "${L[@]}" --duration 45 --out $D.$n.json "$@" 2>/dev/null &
  sleep 15
  for h in $(ls -d $D/node-*); do
    mkdir -p $D/$n/$(basename $h)
    # (jcmd would take key=value in the options for its own arguments: they are quoted)
    jcmd $(cat $h/pid) JVMTI.agent_load "$AP_LIB" "\"start,event=itimer,interval=1ms,threads\"" >/dev/null
  done
  sleep 20
  for h in $(ls -d $D/node-*); do
    # (jcmd would take key=value in the options for its own arguments: they are quoted)
    jcmd $(cat $h/pid) JVMTI.agent_load "$AP_LIB" "\"stop,collapsed,file=$D/$n/$(basename $h)/c.collapsed\"" >/dev/null
  done
  wait
}
window closed
RATE=${RATE:-$(python3 -c "import json; print(int(0.75*json.load(open('$D.closed.json'))['throughputOpsPerSec']))")}
window paced --rate "$RATE"
bench/volery-cluster.sh stop "$D" >/dev/null 2>&1; pkill -9 -f io.volery.server.VoleryMain; rm -rf "$D"/node-*/data; true
