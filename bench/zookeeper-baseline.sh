#!/usr/bin/env bash
# The ZooKeeper 3.9.5 baseline of docs/benchmarks/zookeeper-baseline.md, end to end: a 3-server
# ensemble (forceSync=yes, each server capped at CPU_PERCENT of a core), client sweeps for setData,
# create/delete and getData, then the plot and tables. About 10 minutes of machine time.
# SETDATA_CLIENTS and OTHER_CLIENTS override the client counts swept.
#
#   bench/zookeeper-baseline.sh [RESULTS_DIR]      (default bench/results/zookeeper-baseline)
#
# Environment: CPU_PERCENT (default 25), RUNS (3), WARMUP (3), DURATION (10), plus those of
# zk-ensemble.sh (FORCE_SYNC, CPU_PERIOD_US, ZK_HEAP).
set -euo pipefail
source "$(dirname "$0")/lib.sh"

results="${1:-$BENCH_DIR/results/zookeeper-baseline}"
ensemble="$results/ensemble"
cpu="${CPU_PERCENT:-25}" runs="${RUNS:-3}" warmup="${WARMUP:-3}" duration="${DURATION:-10}"
rm -rf "$results"; mkdir -p "$results"

"$BENCH_DIR/zk-ensemble.sh" start 3 "$ensemble" "$cpu" > "$results/connect"
trap '"$BENCH_DIR/zk-ensemble.sh" stop 3 "$ensemble"' EXIT
trap 'exit 130' INT TERM
connect="$(cat "$results/connect")"
echo "zookeeper-baseline: ensemble at $connect, each server capped at $cpu% of a core" >&2

sweep() { "$BENCH_DIR/run-sweep.sh" --connect "$connect" --runs "$runs" --warmup "$warmup" --duration "$duration" \
  --results "$results" --server-dir "$ensemble" "$@"; }

# ZooKeeper's leader groups the transactions of one fsync, so throughput keeps growing with requests
# in flight well past the point where the capped servers are busy; the sweep goes up to 3,200.
sweep --workload setdata --label setdata-100B --clients "${SETDATA_CLIENTS:-1 4 16 64 128}" -- --bytes 100
sweep --workload createdelete --label createdelete-10pct-100B --clients "${OTHER_CLIENTS:-1 16 64}" -- --bytes 100 --global-percent 10
sweep --workload getdata --label getdata-100B --clients "${OTHER_CLIENTS:-1 16 64}" -- --bytes 100

"$BENCH_DIR/plot.py" "$results" --out "$REPO_DIR/docs/benchmarks" --name zookeeper-baseline \
  --title "ZooKeeper 3.9.5, 3 servers, forceSync=yes, each capped at $cpu% of a core (busy shared 2-core machine)"
