#!/usr/bin/env bash
# Session 33: the cost of TLS between nodes, one partition, durable, 15 % caps, alternating builds' configs.
set -u
cd /tmp/s33
TLS="sslQuorum = true; ssl.quorum.keyStore.location = /tmp/s33-ca/node.p12; ssl.quorum.keyStore.password = volery-bench; ssl.quorum.trustStore.location = /tmp/s33-ca/trust.p12; ssl.quorum.trustStore.password = volery-bench"
run() {
  local label=$1 extra=$2
  echo "$(date -u +%H:%M:%S) start $label"
  EXTRA_CONFIG="$extra" WORKLOADS=setdata SYSTEMS="v1" STORAGES=durable CPU_PERCENT=15 RUNS=1 JIT_WARMUP=60 WARMUP=5 DURATION=10 \
    bench/volery-vs-zk.sh --quick /tmp/s33-out/$label > /tmp/s33-out/$label.log 2>&1
  echo "$(date -u +%H:%M:%S) end $label rc=$?"
}
mkdir -p /tmp/s33-out
run plain1 ""
run tls1 "$TLS"
run plain2 ""
run tls2 "$TLS"
