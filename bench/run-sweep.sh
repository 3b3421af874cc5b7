#!/usr/bin/env bash
# Sweeps volery-bench over client counts against one endpoint, several runs per point, one JSON
# report per run in the results directory. Stops early once throughput has stopped growing.
#
#   bench/run-sweep.sh --connect HOST:PORT,... --workload W [options] [-- extra volery-bench options]
#
# VOLERY_BENCH_JAVA_OPTS in the environment: more JVM options for volery-bench (the ZooKeeper client's TLS
# properties, for instance), as for bench/volery-bench.
#
#   --clients "1 2 4 8 16"   client counts, in increasing order (default: "1 2 4 8 16 32")
#   --runs 3                 runs per point (default 3; each uses --seed = run number)
#   --warmup 5 --duration 15 seconds per run (defaults 5 and 15)
#   --results DIR            where the JSON goes (default bench/results)
#   --label NAME             file prefix (default: the workload)
#   --server-dir DIR         a zk-ensemble.sh or volery-cluster.sh directory: each run also records
#                            the servers' CPU seconds and cgroup throttling in <run>.servers.json
#   --no-stop                run every client count even after throughput stopped growing
#
# Saturation: after each point, if its median throughput is below 1.05 x the best median so far
# for two points in a row, the sweep stops.
set -euo pipefail
source "$(dirname "$0")/lib.sh"

connect="" workload="" clients="1 2 4 8 16 32" runs=3 warmup=5 duration=15
results="$BENCH_DIR/results" label="" server_dir="" stop_when_flat=1
extra=()
while [ $# -gt 0 ]; do
  case "$1" in
    --connect) connect="$2"; shift 2 ;;
    --workload) workload="$2"; shift 2 ;;
    --clients) clients="$2"; shift 2 ;;
    --runs) runs="$2"; shift 2 ;;
    --warmup) warmup="$2"; shift 2 ;;
    --duration) duration="$2"; shift 2 ;;
    --results) results="$2"; shift 2 ;;
    --label) label="$2"; shift 2 ;;
    --server-dir) server_dir="$2"; shift 2 ;;
    --no-stop) stop_when_flat=0; shift ;;
    --) shift; extra=("$@"); break ;;
    *) die "unknown option '$1' (see the header of $0)" ;;
  esac
done
[ -n "$connect" ] || die "--connect is required"
[ -n "$workload" ] || die "--workload is required"
label="${label:-$workload}"
mkdir -p "$results"
cp="$(bench_classpath)"

# Each server has a home directory with its pid (and its cgroup, if capped): zk-N/ or node-N/.
server_pids=() server_homes=()
if [ -n "$server_dir" ]; then
  for pidfile in "$server_dir"/*/pid; do
    [ -e "$pidfile" ] || continue
    server_homes+=("$(dirname "$pidfile")"); server_pids+=("$(cat "$pidfile")")
  done
  [ ${#server_pids[@]} -gt 0 ] || die "no running servers under --server-dir $server_dir"
fi

# One JSON object with each server's CPU seconds so far and its cgroup's throttling counters.
server_snapshot() {
  local first=1 i pid home
  printf '['
  for i in "${!server_pids[@]}"; do
    pid="${server_pids[$i]}"; home="${server_homes[$i]}"
    local throttled=0 throttled_ns=0
    if [ -f "$home/cgroup" ]; then
      throttled="$(awk '$1=="nr_throttled"{print $2}' "$(cat "$home/cgroup")/cpu.stat")"
      throttled_ns="$(awk '$1=="throttled_time"{print $2}' "$(cat "$home/cgroup")/cpu.stat")"
    fi
    [ $first -eq 1 ] || printf ','
    first=0
    printf '{"pid": %s, "cpuSeconds": %s, "nrThrottled": %s, "throttledNanos": %s}' \
      "$pid" "$(proc_cpu_seconds "$pid" || echo null)" "${throttled:-0}" "${throttled_ns:-0}"
  done
  printf ']'
}

median_throughput() {
  python3 - "$@" <<'PY'
import json, statistics, sys
print(statistics.median(json.load(open(f))["throughputOpsPerSec"] for f in sys.argv[1:]))
PY
}

best=0 flat=0
for c in $clients; do
  files=()
  for ((r = 1; r <= runs; r++)); do
    out="$results/$label-c$c-r$r.json"
    cmd=(java -Xms256m -Xmx1g ${VOLERY_BENCH_JAVA_OPTS:-} -cp "$cp" io.volery.bench.VoleryBench --connect "$connect" --workload "$workload"
         --clients "$c" --warmup "$warmup" --duration "$duration" --seed "$r" --out "$out" "${extra[@]}")
    echo "# $(date -u +%FT%TZ) loadavg $(cut -d' ' -f1-3 /proc/loadavg): ${cmd[*]}" | sed "s#$cp#<classpath>#" >> "$results/sweep.log"
    before=""; [ ${#server_pids[@]} -gt 0 ] && before="$(server_snapshot)"
    "${cmd[@]}" 2> >(grep -v '^volery-bench .*[0-9]/[0-9]*s ' >&2) || die "volery-bench failed for $c clients, run $r"
    if [ ${#server_pids[@]} -gt 0 ]; then
      printf '{"before": %s, "after": %s}\n' "$before" "$(server_snapshot)" > "${out%.json}.servers.json"
    fi
    files+=("$out")
  done
  m="$(median_throughput "${files[@]}")"
  echo "run-sweep: $label $c clients: median $m ops/s over $runs runs" >&2
  if python3 -c "import sys; sys.exit(0 if float('$m') >= 1.05 * float('$best') else 1)"; then
    flat=0
  else
    flat=$((flat + 1))
  fi
  best="$(python3 -c "print(max(float('$m'), float('$best')))")"
  if [ "$stop_when_flat" -eq 1 ] && [ "$flat" -ge 2 ]; then
    echo "run-sweep: throughput stopped growing (best median $best ops/s); sweep ends at $c clients" >&2
    break
  fi
done
