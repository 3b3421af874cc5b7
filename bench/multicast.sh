#!/usr/bin/env bash
# The multicast benchmark of docs/benchmarks/multicast.md, in one run: the raw Netty echo between two
# processes (the ceiling), then MulticastBench over its ring layouts, sizes and storage modes.
# Usage: bench/multicast.sh [SECONDS_PER_POINT]   (default 5)
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-5}"
mvn -B -q -pl multiring-paxos -am test-compile -DskipTests >/dev/null
mvn -B -q -pl multiring-paxos dependency:build-classpath -Dmdep.outputFile=target/cp.txt -Dmdep.includeScope=test >/dev/null
cd multiring-paxos
CP="target/classes:target/test-classes:$(cat target/cp.txt)"
JAVA=(java -Xmx1500m -Dorg.slf4j.simpleLogger.defaultLogLevel=warn -cp "$CP")

echo "## Raw Netty echo between two processes (ceiling), window 64"
echo
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
"${JAVA[@]}" io.eyrie.multicast.internal.transport.RawEchoBench --server --port "$port" >/dev/null 2>&1 &
server=$!
trap 'kill $server 2>/dev/null || true' EXIT
sleep 2
for size in 100 1000 10000; do
  "${JAVA[@]}" io.eyrie.multicast.internal.transport.RawEchoBench --client --host 127.0.0.1 --port "$port" \
      --size "$size" --window 64 --seconds "$seconds" --warmup 1 2>/dev/null | tail -1
done
kill $server 2>/dev/null || true
echo
echo "## Multi-Ring Paxos: three nodes, node 1 learns every group"
echo
"${JAVA[@]}" io.eyrie.multicast.MulticastBench --seconds "$seconds" --warmup 2 2>target/multicast-bench.err
