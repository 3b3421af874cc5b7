#!/usr/bin/env bash
# The long runs of docs/jepsen.md: every workload for TIME_LIMIT seconds (default 300) under a
# rotation of every fault, against Volery, then the same workloads against ZooKeeper 3.9.5.
# One run at a time (the machine is shared). Summary lines go to STORE/summary.txt.
#   jepsen/full-runs.sh [volery|zookeeper|both] [workload ...]
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
t="${TIME_LIMIT:-300}"
systems="${1:-both}"; shift || true
workloads=("${@:-register set unique-ids queue transfer}")
read -r -a workloads <<< "${workloads[*]}"
volery_faults="kill,partition-halves,pause,partition-bridge,partition-coordinator,pause-partition,partition-partitions,restart"
zk_faults="kill,partition-halves,pause,partition-bridge,partition-coordinator,restart"
store="$here/store"; mkdir -p "$store"
for system in volery zookeeper; do
  [[ "$systems" == both || "$systems" == "$system" ]] || continue
  faults=$volery_faults; [[ $system == zookeeper ]] && faults=$zk_faults
  for w in "${workloads[@]}"; do
    start=$(date +%s)
    "$here/run.sh" --system "$system" --workload "$w" --nemesis "$faults" --time-limit "$t" \
        --nemesis-interval 5 --fault-duration 8 > "$store/last-run.log" 2>&1
    rc=$?
    line="$(grep -h '\] results ' "$store/last-run.log" | tail -1)"
    echo "$(date -u +%FT%TZ) $system $w exit=$rc $(( $(date +%s) - start ))s ${line:-no result: see $store/last-run.log}" | tee -a "$store/summary.txt"
    cp "$store/last-run.log" "$store/$system-$w.log"
  done
done
