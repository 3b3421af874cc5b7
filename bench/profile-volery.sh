#!/usr/bin/env bash
# Where a Volery node's CPU goes under load: starts P partitions x 3 replicas, warms them up uncapped (the
# JIT compiles for minutes on two cores; a recording of a capped cold cluster shows the compilers), caps
# them (same CPU cap as volery-vs-zk.sh), starts a JFR recording on every node, runs one volery-bench
# load, stops the recordings and the cluster and draws a flame graph and hot-method tables of every node
# with bench/flame.py.
#
#   bench/profile-volery.sh [P] [RESULTS_DIR] [-- volery-bench options]
#        default: 1 partition, bench/results/profile-p1, setdata 100 B, 64 clients, 3 s warm-up, 15 s
#
# Environment: CPU_PERCENT (default 15), WARMUP_SECONDS (default 90: uncapped closed-loop setdata before the
# caps, in runs of at most 30 s; 0 for none), JFR_SETTINGS (default "default", JFR's low-overhead settings:
# under a 15 % cap "profile" is itself a large part of the load), STORAGE (durable), and those of
# volery-cluster.sh.
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
connect="$(CAP_LATER=1 "$BENCH_DIR/volery-cluster.sh" start "$partitions" "$dir" "$cpu")"
warmup="${WARMUP_SECONDS:-90}"
echo "profile-volery: $partitions partition(s) up; ${warmup} s of uncapped warm-up" >&2
while [ "$warmup" -gt 0 ]; do
  run=$(( warmup < 30 ? warmup : 30 ))
  "$BENCH_DIR/volery-bench" --connect "$connect" --znodes 1000 --subtrees 8 --quiet --workload setdata --bytes 100 \
    --clients 64 --warmup 0 --duration "$run" --out /dev/null
  warmup=$(( warmup - run ))
done
"$BENCH_DIR/volery-cluster.sh" cap "$dir"
for home in "$dir"/node-*; do
  jcmd "$(cat "$home/pid")" JFR.start name=profile "settings=${JFR_SETTINGS:-default}" "filename=$home/node.jfr" > /dev/null
done
echo "profile-volery: each node capped at $cpu% of a core and recording (JFR settings ${JFR_SETTINGS:-default})" >&2
"$BENCH_DIR/volery-bench" --connect "$connect" --znodes 1000 --subtrees 8 --quiet --out "$results/run.json" "${bench_opts[@]}"
for home in "$dir"/node-*; do
  jcmd "$(cat "$home/pid")" JFR.stop name=profile > /dev/null || echo "profile-volery: no recording stopped on $(basename "$home")" >&2
done
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
