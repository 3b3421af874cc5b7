#!/usr/bin/env bash
# Every workload under every fault, each fault separately for TIME_LIMIT seconds (default 300):
# the six workloads run at the same time on one cluster (each with its own processes, history and
# checker), so the matrix takes one run per fault instead of one per workload and fault.
# One run at a time (the machine is shared). Summary lines go to STORE/matrix-summary.txt.
#   jepsen/matrix-runs.sh [volery|zookeeper|both] [fault ...]
# PARTITIONS=n runs Volery with n partitions of 3 nodes (default 2).
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
t="${TIME_LIMIT:-300}"
systems="${1:-both}"; shift || true
workloads="${WORKLOADS:-register,set,unique-ids,queue,transfer,pipeline}"
volery_faults=(kill partition-halves pause partition-bridge partition-coordinator pause-partition partition-partitions restart)
zk_faults=(kill partition-halves pause partition-bridge partition-coordinator restart)
store="${STORE:-$here/store}"; mkdir -p "$store"
# its own test network, so that the CI's short run (network 0) can run beside it
export JEPSEN_NET="${JEPSEN_NET:-1}"
for system in volery zookeeper; do
  [[ "$systems" == both || "$systems" == "$system" ]] || continue
  if [[ $# -gt 0 ]]; then faults=("$@"); elif [[ $system == zookeeper ]]; then faults=("${zk_faults[@]}"); else faults=("${volery_faults[@]}"); fi
  for f in "${faults[@]}"; do
    start=$(date +%s)
    "$here/run.sh" --system "$system" --workload "$workloads" --nemesis "$f" --time-limit "$t" \
        --concurrency "${CONCURRENCY:-6}" --nemesis-interval 5 --fault-duration 8 \
        ${PARTITIONS:+--partitions "$PARTITIONS"} > "$store/last-matrix-run.log" 2>&1
    rc=$?
    echo "$(date -u +%FT%TZ) $system $f exit=$rc $(( $(date +%s) - start ))s" | tee -a "$store/matrix-summary.txt"
    grep -h '\] results ' "$store/last-matrix-run.log" | sed 's/^/    /' | tee -a "$store/matrix-summary.txt"
    cp "$store/last-matrix-run.log" "$store/matrix-$system-$f.log"
  done
done
