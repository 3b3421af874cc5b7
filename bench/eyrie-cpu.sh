#!/usr/bin/env bash
# Work per node and per command of the Eyrie key-value example, measured so that a busy machine
# does not change it much (docs/benchmarks/eyrie.md, "CPU per command and per idle node"):
#   bench/eyrie-cpu.sh idle P     idle CPU of each replica of P partitions x 3 (ms of CPU per second)
#   bench/eyrie-cpu.sh load P     P partitions x 3, uncapped, under the KvBenchmark driver (0 % multi):
#                                 the driver's line with replica CPU us/cmd and messages/cmd
# Env: SECONDS_MEASURED (default 10 for idle, 8 under load). Replicas run like bin/bench-eyrie's.
set -euo pipefail
cd "$(dirname "$0")/.."
MODE=${1:?usage: bench/eyrie-cpu.sh idle|load PARTITIONS}
P=${2:?usage: bench/eyrie-cpu.sh idle|load PARTITIONS}
OUT=target/eyrie-cpu/$MODE-p$P
rm -rf "$OUT" && mkdir -p "$OUT/stats"
mvn -B -o -q -pl eyrie-core,eyrie-examples -am compile dependency:build-classpath \
  -Dmdep.outputFile=target/bench.cp -Dmdep.includeScope=runtime >/dev/null
CP="eyrie-examples/target/classes:$(cat eyrie-examples/target/bench.cp)"
JAVA=(java -Dorg.slf4j.simpleLogger.defaultLogLevel=warn -Xmx256m -XX:+UseSerialGC -XX:TieredStopAtLevel=1 -XX:ActiveProcessorCount=1 -cp "$CP")
"${JAVA[@]}" io.eyrie.examples.cluster.LocalClusterFile "$P" 3 4 memory "$OUT/data" "$OUT/cluster.cfg"
PIDS=()
cleanup() { for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done; wait 2>/dev/null || true; }
trap cleanup EXIT
for N in $(seq 1 $((P * 3))); do
  "${JAVA[@]}" io.eyrie.examples.kv.KvReplicaMain --config "$OUT/cluster.cfg" --node "$N" --stats "$OUT/stats" \
    > "$OUT/node-$N.out" 2>&1 &
  PIDS+=($!)
done
for N in $(seq 1 $((P * 3))); do
  for _ in $(seq 1 600); do grep -q running "$OUT/node-$N.out" 2>/dev/null && break; sleep 0.1; done
  grep -q running "$OUT/node-$N.out" || { echo "replica $N did not start:"; cat "$OUT/node-$N.out"; exit 1; }
done
if [ "$MODE" = idle ]; then
  SECS=${SECONDS_MEASURED:-10}
  sleep 5
  ticks() { local t=0; for p in "${PIDS[@]}"; do read -r -a f < "/proc/$p/stat"; t=$((t + f[13] + f[14])); done; echo "$t"; }
  a=$(ticks); sleep "$SECS"; b=$(ticks)
  hz=$(getconf CLK_TCK)
  awk -v d=$((b - a)) -v hz="$hz" -v s="$SECS" -v n=$((P * 3)) \
    'BEGIN { printf "idle, %d partitions, %d replicas: %.1f ms of CPU per second per replica\n", n / 3, n, d * 1000 / hz / s / n }'
else
  SECS=${SECONDS_MEASURED:-8}
  "${JAVA[@]}" io.eyrie.examples.bench.KvBenchmark --config "$OUT/cluster.cfg" --stats "$OUT/stats" --out "$OUT/results.csv" \
    --multi 0 --warmup-seconds 6 --seconds "$SECS" --label uncapped | tail -1
fi
