#!/usr/bin/env bash
# Server CPU per request in steady state: starts a cluster (Volery 1 partition x 3, or ZooKeeper 3.9.5
# with 3 servers), drives it with volery-bench through the ZooKeeper client, and reads every server
# process's CPU time (/proc/PID/stat) at the start and at the end of a window inside the measured part
# of the run, after the warm-up. Session set-up, warm-up (JIT) and tear-down are outside the window.
# CPU time, not throughput, is the figure: it hardly depends on how busy the shared machine is.
#
#   bench/cpu-per-request.sh volery|zookeeper RESULTS_DIR [-- volery-bench options]
#        default: setdata 100 B, 64 clients x 25 outstanding, --client-per-subtree, 8 subtrees,
#        1000 znodes, 40 s warm-up, 20 s measured
#
# Prints one line per server (CPU µs per request) and the sum; writes RESULTS_DIR/cpu.json.
# Environment: PARTITIONS (Volery, default 1), CPU_PERCENT (default: none, uncapped), JIT_WARMUP (with CPU_PERCENT: seconds of uncapped
#              load before the caps go on, default 30), STORAGE (durable), FORCE_SYNC (yes),
#              PROFILE=1: a JFR recording (settings=profile) of every server over the window only,
#              RESULTS_DIR/node-N.jfr, and the bytes allocated per request from its allocation samples
#              (CPU figures of a profiled run include JFR's own cost: take them from a run without it);
#              bench/flame.py draws the recordings. WARMUP (40), DURATION (20).
set -euo pipefail
source "$(dirname "$0")/lib.sh"

system="${1:-}"; results="${2:-}"
[[ "$system" =~ ^(volery|zookeeper)$ ]] && [ -n "$results" ] || die "usage: $0 volery|zookeeper RESULTS_DIR [-- volery-bench options]"
shift 2
[ "${1:-}" = "--" ] && shift
warmup="${WARMUP:-40}"; duration="${DURATION:-20}"
bench_opts=("$@")
[ ${#bench_opts[@]} -gt 0 ] || bench_opts=(--workload setdata --bytes 100 --clients 64 --outstanding 25)
rm -rf "$results"; mkdir -p "$results"
results="$(cd "$results" && pwd)"
dir="$results/servers"
cpu="${CPU_PERCENT:-}"
jit="${JIT_WARMUP:-30}"; [ -n "$cpu" ] || jit=0
cap_later=$([ "$jit" -gt 0 ] && echo 1 || echo 0)

if [ "$system" = volery ]; then
  stop() { "$BENCH_DIR/volery-cluster.sh" stop "$dir"; }
  trap stop EXIT
  connect="$(CAP_LATER=$cap_later "$BENCH_DIR/volery-cluster.sh" start "${PARTITIONS:-1}" "$dir" $cpu)"
  mapfile -t pids < <("$BENCH_DIR/volery-cluster.sh" pids "$dir")
  cap_now() { "$BENCH_DIR/volery-cluster.sh" cap "$dir"; }
else
  stop() { "$BENCH_DIR/zk-ensemble.sh" stop 3 "$dir"; }
  trap stop EXIT
  connect="$(CAP_LATER=$cap_later "$BENCH_DIR/zk-ensemble.sh" start 3 "$dir" $cpu)"
  mapfile -t pids < <("$BENCH_DIR/zk-ensemble.sh" pids "$dir")
  cap_now() { "$BENCH_DIR/zk-ensemble.sh" cap "$dir"; }
fi
trap 'exit 130' INT TERM
if [ "$jit" -gt 0 ]; then
  jit_warmup "$connect" "$jit" --znodes 1000 --subtrees 8 --client-per-subtree
  cap_now
fi

total=$((warmup + duration))
first=$((warmup + 1))
log="$results/progress.log"
"$BENCH_DIR/volery-bench" --connect "$connect" --znodes 1000 --subtrees 8 --client-per-subtree \
  --warmup "$warmup" --duration "$duration" --out "$results/run.json" "${bench_opts[@]}" > "$log" 2>&1 &
bench=$!

# The progress line of second S is printed when second S ends: the window runs from the end of the
# first measured second to the end of the last one.
sample() { for p in "${pids[@]}"; do proc_cpu_seconds "$p"; done | paste -sd' '; }
wait_for_second() {
  while ! grep -qE "volery-bench +$1/${total}s" "$log"; do
    kill -0 "$bench" 2>/dev/null || { cat "$log" >&2; die "volery-bench ended before second $1"; }
    sleep 0.05
  done
}
jfr_start() {
  [ "${PROFILE:-}" = 1 ] || return 0
  local i=0; for p in "${pids[@]}"; do i=$((i + 1)); jcmd "$p" JFR.start name=window settings=profile \
    filename="$results/node-$i.jfr" >/dev/null; done
}
jfr_stop() {
  [ "${PROFILE:-}" = 1 ] || return 0
  for p in "${pids[@]}"; do jcmd "$p" JFR.stop name=window >/dev/null; done
}
wait_for_second "$first"; jfr_start; before="$(sample)"
wait_for_second "$total"; after="$(sample)"; jfr_stop
wait "$bench" || { cat "$log" >&2; die "volery-bench failed"; }

python3 - "$results/run.json" "$first" "$total" "$before" "$after" "$system" "${pids[*]}" > "$results/cpu.json" <<'EOF'
import json, sys
run = json.load(open(sys.argv[1]))
first, total = int(sys.argv[2]), int(sys.argv[3])
before = [float(x) for x in sys.argv[4].split()]
after = [float(x) for x in sys.argv[5].split()]
ops = sum(p["ops"] for p in run["timeline"] if first < p["second"] <= total)
per_node = [round((a - b) * 1e6 / ops, 1) for a, b in zip(after, before)]
alloc = []
import glob, os, re, subprocess
for i in range(1, len(before) + 1):
    f = os.path.join(os.path.dirname(sys.argv[1]), "node-%d.jfr" % i)
    if not os.path.exists(f):
        break
    # The samples' weights add up to the bytes allocated (JFR's ObjectAllocationSample contract), except
    # a thread's first sample, which weighs everything since the thread started; JFR's own threads are
    # left out.
    out = subprocess.run(["jfr", "print", "--events", "jdk.ObjectAllocationSample", f], capture_output=True,
                         text=True).stdout
    unit = {"bytes": 1, "byte": 1, "kB": 1024, "MB": 1024 ** 2, "GB": 1024 ** 3}
    seen, allocated = set(), 0.0
    for block in out.split("jdk.ObjectAllocationSample {")[1:]:
        w = re.search(r"weight = ([\d.,]+) (bytes|byte|kB|MB|GB)", block)
        t = re.search(r'eventThread = "([^"]*)" \(javaThreadId = (\d+)\)', block)
        if not w or not t or t.group(1).startswith(("JFR", "Attach Listener")):
            continue
        if t.group(2) not in seen:
            seen.add(t.group(2))
            continue
        allocated += float(w.group(1).replace(",", "")) * unit[w.group(2)]
    alloc.append(round(allocated / ops))
print(json.dumps({"system": sys.argv[6], "allocBytesPerRequestPerNode": alloc, "windowSeconds": total - first, "requests": ops,
                  "opsPerSec": round(ops / (total - first), 1),
                  "cpuSecondsPerNode": [round(a - b, 2) for a, b in zip(after, before)],
                  "cpuMicrosPerRequestPerNode": per_node, "cpuMicrosPerRequestSum": round(sum(per_node), 1),
                  "config": run["config"], "errors": run["errorCount"], "loadGeneratorCpu": run["cpu"]}, indent=1))
EOF
python3 -c '
import json, sys
c = json.load(open(sys.argv[1]))
print("%s: %d requests in %d s (%.0f/s), CPU us per request per node %s, sum %.0f, errors %d%s" % (
    c["system"], c["requests"], c["windowSeconds"], c["opsPerSec"], c["cpuMicrosPerRequestPerNode"],
    c["cpuMicrosPerRequestSum"], c["errors"],
    ", alloc bytes per request per node %s" % c["allocBytesPerRequestPerNode"] if c["allocBytesPerRequestPerNode"] else ""))' "$results/cpu.json"
