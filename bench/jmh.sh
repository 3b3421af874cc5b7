#!/usr/bin/env bash
# Runs the JMH microbenchmarks of the jmh/ module (jute codec, znode-tree apply, Kryo command codec,
# multicast merge) with the gc profiler, so every result carries its allocation per operation.
#
#   bench/jmh.sh [JMH options] [benchmark regexp...]     e.g. bench/jmh.sh MergerBench -p rings=4
#   bench/jmh.sh --smoke                                 every benchmark once, a fraction of a second each
#
# Defaults are the benchmarks' own annotations (1 fork, 3 x 1 s warm-up, 5 x 1 s measured), about
# 8 minutes for everything. Results: bench/results/jmh/results.json (JMH's JSON) and results.txt.
# Environment: RESULTS (directory, default bench/results/jmh).
set -euo pipefail
source "$(dirname "$0")/lib.sh"

results="${RESULTS:-$BENCH_DIR/results/jmh}"
mkdir -p "$results"
results="$(cd "$results" && pwd)"

target="$REPO_DIR/jmh/target"
sum="$(cat "$REPO_DIR/pom.xml" "$REPO_DIR/jmh/pom.xml" | sha1sum | cut -c1-12)"
cpfile="$target/jmh-classpath-$sum.txt"
# Always compile (the benchmarks are what changes); resolve the classpath once per pom checksum.
mvn_args=(-B -q -Dstyle.color=never -pl jmh -am compile)
[ -s "$cpfile" ] || mvn_args+=(dependency:build-classpath "-Dmdep.outputFile=$cpfile" -Dmdep.includeScope=runtime)
(cd "$REPO_DIR" && { mvn -o "${mvn_args[@]}" >&2 || mvn "${mvn_args[@]}" >&2; }) \
  || die "could not compile the jmh module with Maven"
# The reactor's own modules by their class directories, so no install is needed.
cp="$target/classes:$REPO_DIR/volery-server/target/classes:$REPO_DIR/eyrie-core/target/classes"
cp+=":$REPO_DIR/multiring-paxos/target/classes:$(tr ':' '\n' < "$cpfile" | grep -v '/io/eyrie/' | paste -sd:)"

args=()
if [ "${1:-}" = "--smoke" ]; then
  shift
  args=(-f 1 -wi 0 -i 1 -r 200ms -p bytes=1000 -p rings=2 -p batch=16)
fi
cmd=(java -cp "$cp" org.openjdk.jmh.Main -prof gc -rf json -rff "$results/results.json" "${args[@]}" "$@")
echo "# $(date -u +%FT%TZ) loadavg $(cut -d' ' -f1-3 /proc/loadavg): ${cmd[*]}" | sed "s#$cp#<classpath>#" >> "$results/jmh.log"
"${cmd[@]}" | tee "$results/results.txt"

# A Markdown table of the run (time and allocation per operation) for docs/benchmarks/jmh.md.
python3 - "$results/results.json" > "$results/results.md" <<'PY'
import json, sys
rows = json.load(open(sys.argv[1]))
print("| benchmark | params | time per op | ± (99.9%) | allocated per op |")
print("|---|---|---:|---:|---:|")
for b in rows:
    name = ".".join(b["benchmark"].split(".")[-2:])
    params = ", ".join(f"{k}={v}" for k, v in sorted(b.get("params", {}).items()))
    m = b["primaryMetric"]
    # JMH writes "NaN" (a string) as the error of a single iteration
    err = float(m["scoreError"])
    alloc = b["secondaryMetrics"].get("gc.alloc.rate.norm", {}).get("score")
    alloc = None if alloc is None else float(alloc)
    print(f"| {name} | {params} | {float(m['score']):,.0f} {m['scoreUnit']} | "
          f"{'–' if err != err else f'{err:,.0f}'} | {'–' if alloc is None else f'{alloc:,.0f} B'} |")
PY
echo "bench/jmh.sh: $results/results.json, results.txt, results.md" >&2
