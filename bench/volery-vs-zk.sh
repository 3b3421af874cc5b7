#!/usr/bin/env bash
# Volery vs ZooKeeper side by side (issue 6, docs/benchmarks/volery-vs-zookeeper.md): ZooKeeper 3.9.5
# with 3 servers and Volery with 1, 2 and 4 partitions of 3 replicas, every server process in its own
# cgroup capped at the same CPU_PERCENT of one core, durable (fsync) and in-memory, the paper's
# workloads through the same load generator, then a replica kill under load; plots and tables at the end.
#
#   bench/volery-vs-zk.sh --full  [RESULTS_DIR]   the comparison for a quiet machine: 3 runs per point, ~30 min
#   bench/volery-vs-zk.sh --quick [RESULTS_DIR]   every point once, short runs, 250 znodes, ~15-30 min
#   bench/volery-vs-zk.sh --smoke [RESULTS_DIR]   proves the kit works (~2-4 min, mostly JVM starts): ZooKeeper
#                                                 and Volery with 2 partitions at 50% of a core each,
#                                                 50 znodes, 2 s runs, a leader kill, the plots
#
# RESULTS_DIR (default bench/results/volery-vs-zk) gets STORAGE/SYSTEM/<label>-c<clients>-r<run>.json
# (SYSTEM = zk, v1, v2, v4; each durable setData 100 B sweep is followed by setdata-100B-at75, the same
# load paced at 75 % of the sweep's saturation: the latency at 75 % load, ADR 048), kill/<system>.json with kill/<system>.fault, and the figures and tables
# (compare.py). Environment: CPU_PERCENT (default 15: 12 Volery nodes x 15% fit in 2 cores with room
# for the load generator), RUNS, WARMUP, DURATION, SWEEP_CLIENTS, POINT_CLIENTS, JIT_WARMUP (seconds of
# uncapped load right after each cluster starts, before the caps go on: --full/--quick 30, for v2 and v4
# JIT_MULTI_WARMUP, default 360, --smoke 0; then
# more 10 s rounds while the servers' JIT compilers are still busy, see jit_warmup in lib.sh: JIT_MAX,
# JIT_SETTLED_PERMILLE, JIT_CLIENTS; then, capped, rounds until they are quiet, at most JIT_CAPPED_MAX),
# OWNER_AFFINITY (1: each client connects to a server of the partition owning its subtree), WORKLOADS (all; setdata: durable setData 100 and 1000 B only; setdata3: and 10000 B; global: setData 100 B and create/delete at GLOBAL_PCTS, default 10, either storage), STORAGES (default "durable memory"), SYSTEMS (default "zk v1 v2 v4"; a subset reruns part of a comparison), OUT (where
# compare.py writes, default RESULTS_DIR/plots), SERVER_CPUS (a taskset CPU list: every server's threads are
# pinned to it when its caps go on, e.g. 0; session 55), and those of zk-ensemble.sh and volery-cluster.sh.
# Without a writable cgroup v1 cpu controller, --smoke runs uncapped; the other modes refuse.
set -euo pipefail
source "$(dirname "$0")/lib.sh"

mode="${1:-}"
case "$mode" in
  --full)  runs="${RUNS:-3}" warmup="${WARMUP:-3}" duration="${DURATION:-6}"
           sweep_clients="${SWEEP_CLIENTS:-4 16 64}" point="${POINT_CLIENTS:-64}" kill_run=30 jit_default=30 jit_multi=360 ;;
  --quick) runs="${RUNS:-1}" warmup="${WARMUP:-2}" duration="${DURATION:-4}"
           sweep_clients="${SWEEP_CLIENTS:-4 16 64}" point="${POINT_CLIENTS:-64}" kill_run=20 znodes=250 jit_default=30 jit_multi=360 ;;
  --smoke) runs="${RUNS:-1}" warmup="${WARMUP:-1}" duration="${DURATION:-2}"
           sweep_clients="${SWEEP_CLIENTS:-2}" point="${POINT_CLIENTS:-2}" kill_run=6 znodes=50
           CPU_PERCENT="${CPU_PERCENT:-50}" jit_default=0 jit_multi=0 ;;
  *) die "usage: $0 --full|--quick|--smoke [RESULTS_DIR]" ;;
esac
results="${2:-$BENCH_DIR/results/volery-vs-zk}"
cpu="${CPU_PERCENT:-15}"
if [ ! -w "$CGROUP_CPU_ROOT" ]; then
  [ "$mode" = --smoke ] || die "cannot write $CGROUP_CPU_ROOT: the comparison needs the cgroup v1 cpu controller and root"
  echo "volery-vs-zk: $CGROUP_CPU_ROOT not writable, the smoke run goes uncapped" >&2
  cpu=""
fi
rm -rf "$results"; mkdir -p "$results/kill"
results="$(cd "$results" && pwd)"
log="$results/volery-vs-zk.log"
say() { echo "volery-vs-zk: $(date -u +%T) $*" | tee -a "$log" >&2; }
say "mode $mode, runs $runs, warm-up $warmup s, measured $duration s, cap ${cpu:-none}% of a core per server, load $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) cores"

# The cluster running now, so that an interrupted run stops it.
current_stop=""
cleanup() { [ -z "$current_stop" ] || eval "$current_stop" || true; }
trap cleanup EXIT
trap 'exit 130' INT TERM

# start SYSTEM STORAGE DIR: prints the connect string (run in a subshell: run_system sets current_stop).
start_system() {
  local system="$1" storage="$2" dir="$3"
  if [ "$system" = zk ]; then
    local sync=yes; [ "$storage" = memory ] && sync=no
    FORCE_SYNC="$sync" "$BENCH_DIR/zk-ensemble.sh" start 3 "$dir" $cpu
  else
    STORAGE="$storage" "$BENCH_DIR/volery-cluster.sh" start "${system#v}" "$dir" $cpu
  fi
}

stop_system() { cleanup; current_stop=""; }

# Common volery-bench options: 1000 znodes (ZNODES; --quick 250, --smoke 50) over 8 subtrees, which the subtree hash spreads evenly
# over 2 and over 4 partitions; client i keeps to subtree i mod 8 (the paper's local commands: a client works in one partition,
# so its pipelined requests stay on one ring instead of waiting at every change of partition).
layout=(--znodes "${ZNODES:-${znodes:-1000}}" --subtrees 8 --client-per-subtree)
# OWNER_AFFINITY=1: client i connects first to a server of the partition owning its subtree (volery-bench
# --owner-affinity; ZooKeeper's servers do not say a partition, so its sessions take the servers in turn).
if [ "${OWNER_AFFINITY:-0}" = 1 ]; then layout+=(--owner-affinity); fi

sweep() { # STORAGE SYSTEM CONNECT DIR LABEL CLIENTS WORKLOAD [volery-bench options]
  local storage="$1" system="$2" connect="$3" dir="$4" label="$5" clients="$6" workload="$7"; shift 7
  say "$storage $system $label: clients $clients"
  "$BENCH_DIR/run-sweep.sh" --connect "$connect" --workload "$workload" --label "$label" --clients "$clients" \
    --runs "$runs" --warmup "$warmup" --duration "$duration" --results "$results/$storage/$system" \
    --server-dir "$dir" --no-stop -- --quiet "${layout[@]}" "$@" 2>>"$log"
}

# latency at 75 % of saturation (BENCHMARKS.md): LABEL once more, paced (volery-bench --rate) at 75 % of the
# best median the sweep of LABEL reached, at POINT_CLIENTS; compare.py takes the latencies from it
# (series LABEL-at75). A closed loop at the client count nearest 75 % would land wherever the counts fall.
paced_at_75() { # STORAGE SYSTEM CONNECT DIR LABEL WORKLOAD [volery-bench options]
  local storage="$1" system="$2" connect="$3" dir="$4" label="$5" workload="$6"; shift 6
  local sat; sat="$(saturation "$results/$storage/$system" "$label")"
  if [ -z "$sat" ] || [ "$sat" -le 0 ]; then say "$storage $system $label: no saturation measured, no paced run"; return 0; fi
  local rate=$((sat * 3 / 4 > 0 ? sat * 3 / 4 : 1))
  sweep "$storage" "$system" "$connect" "$dir" "$label-at75" "$point" "$workload" "$@" --rate "$rate"
}

# The node that leads (ZooKeeper's leader; Volery: partition 1's ring coordinator), by asking each.
leader_home() {
  local dir="$1" home port
  for home in "$dir"/zk-* "$dir"/node-*; do
    [ -d "$home" ] || continue
    if [ -f "$home/client-port" ]; then port="$(cat "$home/client-port")"
    else port="$(sed -n 's/^clientPort=//p' "$home/zoo.cfg")"; fi
    if timeout 2 bash -c "exec 3<>/dev/tcp/127.0.0.1/$port && printf srvr >&3 && cat <&3" 2>/dev/null | grep -q '^Mode: leader'; then
      echo "$home"; return 0
    fi
  done
  return 1
}

# A run of kill_run measured seconds in which the leader is killed (SIGKILL) 40% into the measured part.
kill_run() { # SYSTEM CONNECT DIR
  local system="$1" connect="$2" dir="$3" out="$results/kill/$1.json"
  local clients=$((point / 2 > 0 ? point / 2 : 1)) progress="$results/kill/$1.progress"
  local at=$((warmup + kill_run * 2 / 5))
  say "kill: $system, $clients clients, $kill_run s, leader killed at second $at"
  "$BENCH_DIR/volery-bench" --connect "$connect" --workload setdata --bytes 100 --clients "$clients" \
    --warmup "$warmup" --duration "$kill_run" "${layout[@]}" --out "$out" 2>"$progress" &
  local bench=$!
  # The clients start after the JVM and the znode set-up, whose length depends on the system: wait
  # for the progress line of second $at, then kill. The fault's wall-clock time goes into the .fault
  # file and compare.py places it on the report's timeline.
  until grep -qE "^volery-bench +$at/" "$progress" 2>/dev/null; do
    kill -0 "$bench" 2>/dev/null || { say "kill: volery-bench ended before second $at (see $progress)"; return 0; }
    sleep 0.2
  done
  local home; home="$(leader_home "$dir")" || { say "kill: no leader found under $dir"; home=""; }
  if [ -n "$home" ]; then
    kill -9 "$(cat "$home/pid")"
    printf '{"killedAtEpochMillis": %s, "node": "%s"}\n' "$(date +%s%3N)" "$(basename "$home")" > "$results/kill/$system.fault"
    say "kill: killed $(basename "$home") of $system"
  fi
  wait "$bench" || say "kill: volery-bench exited with an error for $system"
  grep -v '^volery-bench .*[0-9]/[0-9]*s ' "$progress" >> "$log" || true
}

run_system() { # STORAGE SYSTEM
  local storage="$1" system="$2" dir="$results/$1/$2/servers" connect
  if [ "$system" = zk ]; then current_stop="'$BENCH_DIR/zk-ensemble.sh' stop 3 '$dir'"
  else current_stop="'$BENCH_DIR/volery-cluster.sh' stop '$dir'"; fi
  # twelve (six) JVMs on two cores take minutes to compile: session 44 saw a 4 x 3 cluster still climbing
  # after six minutes of uncapped load, so the multi-partition clusters warm up for JIT_MULTI_WARMUP (360 s)
  local jit="${JIT_WARMUP:-$jit_default}"
  case "$system" in v2|v4) jit="${JIT_WARMUP:-${JIT_MULTI_WARMUP:-$jit_multi}}" ;; esac
  [ -n "$cpu" ] || jit=0
  local cap_later=0; [ "$jit" -gt 0 ] && cap_later=1
  # A failed start (a port taken between picking and binding it, say) stopped its nodes: keep its logs
  # aside and try once more rather than lose the rest of a long run.
  if ! connect="$(CAP_LATER=$cap_later start_system "$system" "$storage" "$dir")"; then
    mv "$dir" "$dir.failed-start"
    say "$storage $system did not start (logs in $dir.failed-start); starting it again"
    connect="$(CAP_LATER=$cap_later start_system "$system" "$storage" "$dir")"
  fi
  say "$storage $system up at $connect"
  if [ "$jit" -gt 0 ]; then
    # JIT at full speed first: at 15 % of a core the compiler threads otherwise take most of the
    # quota for minutes (measured: 40-60 % of it 35 s after start, ZooKeeper and Volery alike).
    if [ "$system" = zk ]; then JIT_PIDS="$("$BENCH_DIR/zk-ensemble.sh" pids "$dir" | tr '\n' ' ')"
    else JIT_PIDS="$("$BENCH_DIR/volery-cluster.sh" pids "$dir" | tr '\n' ' ')"; fi
    JIT_PIDS="$JIT_PIDS" jit_warmup "$connect" "$jit" "${layout[@]}" 2>&1 | tee -a "$log" >&2
    if [ "$system" = zk ]; then "$BENCH_DIR/zk-ensemble.sh" cap "$dir"; else "$BENCH_DIR/volery-cluster.sh" cap "$dir"; fi
    say "$storage $system warmed up uncapped for $jit s or more, caps applied"
    # Under the cap the load takes other paths (deeper queues, back-pressure) and C2 compiles again:
    # go on, capped, until no server's compilers use more than a tenth of its quota (CPU_PERCENT per mille).
    JIT_PIDS="$JIT_PIDS" jit_settle "$connect" "${JIT_CAPPED_MAX:-120}" "$cpu" "${layout[@]}" 2>&1 | tee -a "$log" >&2
  fi
  if [ "$mode" = --smoke ]; then
    sweep "$storage" "$system" "$connect" "$dir" setdata-100B "$point" setdata --bytes 100
    paced_at_75 "$storage" "$system" "$connect" "$dir" setdata-100B setdata --bytes 100
    [ "$system" = zk ] || sweep "$storage" "$system" "$connect" "$dir" createdelete-10pct "$point" createdelete --bytes 100 --global-percent 10
    kill_run "$system" "$connect" "$dir"
  elif [ "${WORKLOADS:-all}" = global ]; then
    # (with it, the warm-up's capped rounds run the create/delete mix: JIT_SETTLE_WORKLOAD, set below)
    # the global-command goal only, either storage: setData 100 B (0 %) and create/delete at GLOBAL_PCTS
    # (default 10) % of the mix, at POINT_CLIENTS
    sweep "$storage" "$system" "$connect" "$dir" setdata-100B "$point" setdata --bytes 100
    for pct in ${GLOBAL_PCTS:-10}; do
      sweep "$storage" "$system" "$connect" "$dir" "createdelete-${pct}pct" "$point" createdelete --bytes 100 --global-percent "$pct"
    done
  elif [ "$storage" = durable ] && { [ "${WORKLOADS:-all}" = setdata ] || [ "${WORKLOADS:-all}" = setdata3 ]; }; then
    # the 1.5x goal's two points only (setData 100 and 1000 B), e.g. to check a change quickly;
    # setdata3 adds the 10000 B point
    sweep "$storage" "$system" "$connect" "$dir" setdata-100B "$sweep_clients" setdata --bytes 100
    paced_at_75 "$storage" "$system" "$connect" "$dir" setdata-100B setdata --bytes 100
    sweep "$storage" "$system" "$connect" "$dir" setdata-1000B "$point" setdata --bytes 1000
    [ "${WORKLOADS:-all}" = setdata ] || sweep "$storage" "$system" "$connect" "$dir" setdata-10000B "$point" setdata --bytes 10000
  elif [ "$storage" = durable ]; then
    sweep "$storage" "$system" "$connect" "$dir" setdata-100B "$sweep_clients" setdata --bytes 100
    paced_at_75 "$storage" "$system" "$connect" "$dir" setdata-100B setdata --bytes 100
    sweep "$storage" "$system" "$connect" "$dir" setdata-1000B "$point" setdata --bytes 1000
    sweep "$storage" "$system" "$connect" "$dir" setdata-10000B "$point" setdata --bytes 10000
    # global commands: the paper's Figure 6 for the partitioned systems, one point for the others
    local pcts="1 5 10"; case "$system" in zk|v1) pcts="10" ;; esac
    for pct in $pcts; do
      sweep "$storage" "$system" "$connect" "$dir" "createdelete-${pct}pct" "$point" createdelete --bytes 100 --global-percent "$pct"
    done
    if [ "$system" != v2 ]; then
      sweep "$storage" "$system" "$connect" "$dir" getdata-100B "$point" getdata --bytes 100
      sweep "$storage" "$system" "$connect" "$dir" read90-100B "$point" mixed-read90 --bytes 100
    fi
    case "$system" in zk|v1) kill_run "$system" "$connect" "$dir" ;; esac
  else
    sweep "$storage" "$system" "$connect" "$dir" setdata-100B "$point" setdata --bytes 100
  fi
  stop_system
}

if [ "${WORKLOADS:-all}" = global ]; then
  export JIT_SETTLE_WORKLOAD="${JIT_SETTLE_WORKLOAD:-createdelete --bytes 100 --global-percent 10}"
fi
if [ "$mode" = --smoke ]; then
  run_system durable zk
  run_system durable v2
else
  for storage in ${STORAGES:-durable memory}; do
    for system in ${SYSTEMS:-zk v1 v2 v4}; do run_system "$storage" "$system"; done
  done
fi

say "plots and tables"
"$BENCH_DIR/compare.py" "$results" --out "${OUT:-$results/plots}" --cpu-percent "${cpu:-0}" --mode "${mode#--}" 2>&1 | tee -a "$log"
if [ "$mode" = --smoke ]; then
  # The proof that the kit works: every run completed requests and drained, the kill happened, the
  # figures exist. Nothing about speed.
  python3 - "$results" "${OUT:-$results/plots}" <<'PY'
import json, sys
from pathlib import Path
root, out = Path(sys.argv[1]), Path(sys.argv[2])
problems = []
expected = ["durable/zk/setdata-100B-c2-r1.json", "durable/v2/setdata-100B-c2-r1.json",
            "durable/zk/setdata-100B-at75-c2-r1.json", "durable/v2/setdata-100B-at75-c2-r1.json",
            "durable/v2/createdelete-10pct-c2-r1.json", "kill/zk.json", "kill/v2.json"]
for name in expected:
    f = root / name
    if not f.exists():
        problems.append(f"{name}: no report")
        continue
    r = json.loads(f.read_text())
    if r["operations"] <= 0:
        problems.append(f"{name}: expected completed requests, got {r['operations']}")
    if "-at75-" in name and not r["config"].get("rate", 0) > 0:
        problems.append(f"{name}: the latency point at 75 % should be paced, got rate {r['config'].get('rate')}")
    if not name.startswith("kill/") and (r["errorCount"] != 0 or not r["drained"]):
        problems.append(f"{name}: expected no errors and a drained window, got errors {r['errors']}, drained {r['drained']}")
for system in ("zk", "v2"):
    if not (root / "kill" / f"{system}.fault").exists():
        problems.append(f"kill/{system}.fault: the leader was not killed")
for png in ("throughput-by-partitions.png", "latency-cdf.png", "global-commands.png", "kill-timeline.png", "tables.md"):
    if not (out / png).exists() or (out / png).stat().st_size == 0:
        problems.append(f"{out / png}: not written")
if problems:
    sys.exit("volery-vs-zk smoke FAILED:\n  " + "\n  ".join(problems))
print("volery-vs-zk smoke: every run completed requests, both leaders were killed, figures and tables written")
PY
fi
say "done"
