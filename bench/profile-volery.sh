#!/usr/bin/env bash
# Where a Volery node's CPU goes under load: starts P partitions x 3 replicas with JFR on every node
# (same CPU cap as volery-vs-zk.sh), runs one volery-bench load, stops the cluster (the recordings are
# written at exit) and draws a flame graph and hot-method tables of every node with bench/flame.py.
#
#   bench/profile-volery.sh [P] [RESULTS_DIR] [-- volery-bench options]
#        default: 1 partition, bench/results/profile-p1, setdata 100 B, 64 clients, 3 s warm-up, 15 s
#
# Environment: CPU_PERCENT (default 15), STORAGE (durable), and those of volery-cluster.sh.
set -euo pipefail
source "$(dirname "$0")/lib.sh"

partitions="${1:-1}"
results="${2:-$BENCH_DIR/results/profile-p$partitions}"
shift $(( $# >= 2 ? 2 : $# ))
[ "${1:-}" = "--" ] && shift
bench_opts=("$@")
[ ${#bench_opts[@]} -gt 0 ] || bench_opts=(--workload setdata --bytes 100 --clients 64 --warmup 3 --duration 15)
cpu="${CPU_PERCENT:-15}"
rm -rf "$results"; mkdir -p "$results"
results="$(cd "$results" && pwd)"
dir="$results/servers"

trap '"$BENCH_DIR/volery-cluster.sh" stop "$dir"' EXIT
trap 'exit 130' INT TERM
connect="$(JFR=1 "$BENCH_DIR/volery-cluster.sh" start "$partitions" "$dir" "$cpu")"
echo "profile-volery: $partitions partition(s) up, each node capped at $cpu% of a core" >&2
"$BENCH_DIR/volery-bench" --connect "$connect" --znodes 1000 --subtrees 8 --quiet --out "$results/run.json" "${bench_opts[@]}"
# Which node led partition 1 while the load ran (its ring's coordinator does the most work).
for home in "$dir"/node-*; do
  port="$(cat "$home/client-port")"
  mode="$(timeout 2 bash -c "exec 3<>/dev/tcp/127.0.0.1/$port && printf srvr >&3 && cat <&3" 2>/dev/null | sed -n 's/^Mode: //p')" || true
  echo "$(basename "$home") ${mode:-?} cpu_seconds $(proc_cpu_seconds "$(cat "$home/pid")")" >> "$results/nodes.txt"
done
"$BENCH_DIR/volery-cluster.sh" stop "$dir"
trap - EXIT
for home in "$dir"/node-*; do
  [ -s "$home/node.jfr" ] || { echo "profile-volery: no recording from $(basename "$home")" >&2; continue; }
  "$BENCH_DIR/flame.py" "$home/node.jfr" --out "$results" --name "$(basename "$home")"
done
cat "$results/nodes.txt"
