#!/usr/bin/env bash
# The multicast benchmark (MulticastBench: three nodes in one JVM, node 1 measured) over Netty TCP
# on loopback and over the DPDK transport on af_packet, on this machine. For docs/benchmarks/dpdk.md.
# Needs root (a network namespace with three veth pairs on a bridge) and libdpdk-dev.
# Usage: bench/dpdk.sh [SECONDS_PER_POINT] [MulticastBench options...]
#   STATS_MILLIS=1000 bench/dpdk.sh ...   also prints the DPDK ports' counters every second
#   ONLY=dpdk|netty                         runs one transport only
#   default options: --layouts alone,2 --storage memory --sizes 100,1000,10000
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-5}"
shift || true
opts=("$@")
[ ${#opts[@]} -gt 0 ] || opts=(--layouts alone,2 --storage memory --sizes 100,1000,10000)
mvn -B -q -pl transport-dpdk -am test-compile -P dpdk -DskipTests >/dev/null
# transport-dpdk adds no dependencies of its own to the multicast module's
mvn -B -q -pl multiring-paxos dependency:build-classpath -Dmdep.outputFile=target/cp.txt -Dmdep.includeScope=test >/dev/null
root="$(pwd)"
CP="$root/multiring-paxos/target/classes:$root/multiring-paxos/target/test-classes:$root/transport-dpdk/target/classes"
CP="$CP:$(cat multiring-paxos/target/cp.txt)"
JAVA=(java -Xmx1g -Dorg.slf4j.simpleLogger.defaultLogLevel=${LOG_LEVEL:-warn} -Djava.library.path="$root/transport-dpdk/target/native" -cp "$CP")

ns="eyd-bench-$$"
work="$(mktemp -d)"
cleanup() { ip netns del "$ns" 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT
ip netns add "$ns"
ip -n "$ns" link add br0 type bridge
ip -n "$ns" link set br0 up
ip -n "$ns" link set lo up
vdevs=""
for i in 1 2 3; do
  ip -n "$ns" link add "a$i" type veth peer name "b$i"
  ip -n "$ns" link set "a$i" address "02:ee:00:00:00:0$i" up
  ip -n "$ns" link set "b$i" master br0 up
  # framecnt: room for whole fragmented batches in the kernel's RX ring
  vdevs="$vdevs --vdev=net_af_packet$((i-1)),iface=a$i,qpairs=1,framecnt=8192"
done
for i in 1 2 3; do
  printf 'eal.args =%s\nports = net_af_packet%d\nstats.logMillis = %s\n' "$vdevs" "$((i-1))" \
      "${STATS_MILLIS:-0}" > "$work/dpdk-$i.properties"
done

if [ "${ONLY:-}" != dpdk ]; then
  echo "## Netty TCP on loopback"
  echo
  "${JAVA[@]}" io.eyrie.multicast.MulticastBench --seconds "$seconds" --warmup 2 "${opts[@]}" 2>/dev/null
  echo
fi
[ "${ONLY:-}" != netty ] || exit 0
echo "## DPDK transport, af_packet on veth (one bridge, one namespace)"
echo
ip netns exec "$ns" "${JAVA[@]}" -Deyrie.transport.factory=io.eyrie.transport.dpdk.DpdkTransportFactory \
    "-Deyrie.dpdk.config=$work/dpdk-{node}.properties" \
    io.eyrie.multicast.MulticastBench --seconds "$seconds" --warmup 2 "${opts[@]}" 2>&1 \
    | grep -E '^\||dpdk-stats' | sed -E 's/.*(node=[0-9]+ dpdk-stats)/\1/'
