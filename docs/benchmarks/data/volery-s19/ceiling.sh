#!/usr/bin/env bash
# The scaling ceiling of this machine: K independent one-partition clusters (3 nodes each, nothing
# coordinated between them, driven as one sharded run: --connect "A|B|...") against one cluster of
# K partitions and one cluster of one partition, under the same per-node caps, warm-up and load.
#   ceiling.sh DIR [WORKLOAD ARGS...]   env: K (4), PCT (6), CLIENTS (64), DUR (30), ORDER ("sharded vK v1"),
#                                       STORAGE (memory), VJO (extra JVM options of every node), PROFILE (0; 1: async-profiler, itimer, on every node
#                                       for seconds 12-24, collapsed stacks in each node's directory as c.collapsed),
#                                       RAISE ("" or "NODES PCT", e.g. "3 6 9 12": after the caps, those nodes of the
#                                       v$K cluster get PCT instead: which nodes bind the cluster),
#                                       JIT (0; N: the goal command's warm-up instead: bench/lib.sh jit_warmup for N s
#                                       uncapped, caps on, jit_settle capped; JIT_SETTLE_WORKLOAD as there)
# Each configuration: fresh clusters, 3 x 30 s uncapped rounds (the JIT), caps on, a 20 s capped round,
# then the measured run (DUR s, no warm-up); each node's CPU (ms/s) and throttled share over seconds 12-24.
set -euo pipefail
cd "$(dirname "$0")/../../../.."
D="$1"; shift; K="${K:-4}"; PCT="${PCT:-6}"; C="${CLIENTS:-64}"
W=("$@"); [ ${#W[@]} -gt 0 ] || W=(--workload setdata --bytes 100)
L=(--znodes 250 --subtrees 8 --client-per-subtree --owner-affinity --quiet)
mkdir -p "$D"
AP=/tmp/async-profiler-3.0
if [ "${PROFILE:-0}" = 1 ] && [ ! -f $AP/linux-x64/libasyncProfiler.so ]; then
  mkdir -p $AP && (cd $AP && unzip -qo ~/.m2/repository/tools/profiler/async-profiler/3.0/async-profiler-3.0.jar)
fi
# loaded at JVM start, started and stopped by jcmd (attaching to a running JVM deoptimises it: session 16)
AGENT=""; [ "${PROFILE:-0}" = 1 ] && AGENT="-agentpath:$AP/linux-x64/libasyncProfiler.so"
prof() { [ "${PROFILE:-0}" = 1 ] || return 0; local what="$1"; shift
  for h in "$@"; do w="$what"; [ "$what" = stop ] && w="stop,collapsed,file=$h/c.collapsed"
    jcmd "$(cat $h/pid)" JVMTI.agent_load $AP/linux-x64/libasyncProfiler.so "\"$w\"" >/dev/null 2>&1 || echo "profiler $w failed on $h" >&2; done; }
cpu() { for h in "$@"; do pid=$(cat $h/pid); g=$(cat $h/cgroup)
  echo "$(awk '{print $14+$15}' /proc/$pid/stat) $(awk '$1=="nr_periods"{p=$2} $1=="nr_throttled"{t=$2} END{print p, t}' $g/cpu.stat)"; done; }
# summed mntr counters of the given nodes (taken outside the CPU window: 12 capped nodes take seconds)
snap() { for h in "$@"; do python3 - $(cat $h/client-port) <<'PY'
import socket,sys
s=socket.create_connection(('127.0.0.1',int(sys.argv[1]))); s.sendall(b'mntr'); out=b''
while True:
    b=s.recv(65536)
    if not b: break
    out+=b
for l in out.decode().splitlines():
    k,_,v=l.partition('\t')
    if k.startswith('volery_ring_') and k.endswith('_decided') or k in ('volery_frames_sent', 'volery_socket_writes',
            'volery_exchanges_sent', 'volery_asks_sent', 'volery_commands_executed', 'zk_packets_received',
            'volery_reordered_resends', 'volery_asks_answered', 'volery_catch_up_exchanges_sent',
            'volery_volunteerings', 'volery_exchanges_redundant'):
        print(k, v)
PY
done | awk '{a[$1]+=$2} END {for (k in a) print k, a[k]}' | sort; }
one() { # NAME: starts its clusters, warms, caps, measures, stops
  local name="$1" dirs=() connects=() conn
  case "$name" in
    sharded) for k in $(seq 1 $K); do dirs+=("$D/$name-c$k"); done ;;
    v*) dirs=("$D/$name") ;;
  esac
  for x in "${dirs[@]}"; do
    rm -rf "$x"
    local p=1; [ "$name" = "v$K" ] && p=$K
    VOLERY_JAVA_OPTS="${VJO:-} $AGENT" CAP_LATER=1 STORAGE="${STORAGE:-memory}" bench/volery-cluster.sh start $p "$x" $PCT > "$x.connect" 2>"$x.err"
    connects+=("$(cat "$x.connect")")
  done
  conn=$(IFS='|'; echo "${connects[*]}")
  # nodes in numeric order (the first three rounds of session 17 listed them as the glob does: 1, 10, 11, 12, 2, .., 9)
  local nodes=(); for x in "${dirs[@]}"; do nodes+=($(ls -d $x/node-* | sort -V)); done
  raise() { [ -n "${RAISE:-}" ] && [ "$name" = "v$K" ] || return 0; local r=($RAISE) pct=${r[-1]}
    for n in "${r[@]:0:${#r[@]}-1}"; do g=$(cat "${dirs[0]}/node-$n/cgroup")
      echo $(( $(cat $g/cpu.cfs_period_us) * pct / 100 )) > $g/cpu.cfs_quota_us; done; }
  if [ "${JIT:-0}" -gt 0 ]; then
    local pids=""; for h in "${nodes[@]}"; do pids="$pids $(cat $h/pid)"; done
    # (lib.sh's rounds add --quiet themselves)
    (source bench/lib.sh; JIT_PIDS="$pids" jit_warmup "$conn" "$JIT" "${L[@]:0:6}" 2>&1 | tail -1 >&2
     for x in "${dirs[@]}"; do bench/volery-cluster.sh cap "$x"; done; raise
     JIT_PIDS="$pids" jit_settle "$conn" 120 "$PCT" "${L[@]:0:6}" 2>&1 | tail -1 >&2)
  else
    for i in 1 2 3; do bench/volery-bench --connect "$conn" "${L[@]}" "${W[@]}" --clients $C --warmup 0 --duration 30 --out /dev/null 2>/dev/null; done
    for x in "${dirs[@]}"; do bench/volery-cluster.sh cap "$x"; done; raise
    bench/volery-bench --connect "$conn" "${L[@]}" "${W[@]}" --clients $C --warmup 0 --duration 20 --out /dev/null 2>/dev/null
  fi
  snap "${nodes[@]}" > "$D/$name.snap0"; local s0=$(date +%s.%N)
  bench/volery-bench --connect "$conn" "${L[@]}" "${W[@]}" --clients $C --warmup 0 --duration ${DUR:-30} --out "$D/$name.json" 2>/dev/null &
  local b=$!
  sleep 12; prof "start,event=itimer,interval=2ms,threads" "${nodes[@]}"; cpu "${nodes[@]}" > "$D/$name.mid0"; local m0=$(date +%s.%N)
  sleep 12; cpu "${nodes[@]}" > "$D/$name.mid1"; local m1=$(date +%s.%N); prof stop "${nodes[@]}"
  wait $b
  snap "${nodes[@]}" > "$D/$name.snap1"; local s1=$(date +%s.%N)
  local ops; ops=$(python3 -c "import json;d=json.load(open('$D/$name.json'));print(round(d['throughputOpsPerSec']), round(d['latencyMicros']['p50']/1000), d['errorCount'])")
  echo "== $name ($(date +%H:%M:%S)): ops/s p50-ms errors: $ops"
  paste -d' ' "$D/$name.mid0" "$D/$name.mid1" | awk -v s="$(echo "$m1 - $m0" | bc)" -v o="${ops%% *}" \
    '{c=($4-$1)*10/s; t+=c; printf "  %d/%d%%", c, (($5-$2)>0 ? 100*($6-$3)/($5-$2) : 0)} END {printf "\n  nodes %.0f ms/s in all, %.0f us per request\n", t, t*1000/o}'
  echo "  counters over the run and its connects ($(echo "$s1 - $s0" | bc) s), summed over the nodes, per second:"
  join "$D/$name.snap0" "$D/$name.snap1" | awk -v s="$(echo "$s1 - $s0" | bc)" '{printf "    %s %.1f (%d in all)\n", $1, ($3-$2)/s, $3-$2}'
  for x in "${dirs[@]}"; do bench/volery-cluster.sh stop "$x" >/dev/null 2>&1 || true; done
}
for name in ${ORDER:-sharded v$K v1}; do one "$name"; done
