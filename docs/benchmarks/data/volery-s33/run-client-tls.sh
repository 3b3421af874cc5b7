#!/usr/bin/env bash
# Session 33: the cost of TLS between clients and Volery (port unification on the client port, client
# certificates required), one partition, durable, 15 % caps; compare with plain1/plain2 of run.sh.
set -u
cd /tmp/s33
CA=/tmp/s33-cac
SERVER="client.portUnification = true; ssl.keyStore.location = $CA/server.p12; ssl.keyStore.password = volery-bench; ssl.trustStore.location = $CA/trust.p12; ssl.trustStore.password = volery-bench; ssl.clientAuth = need"
CLIENT="-Dzookeeper.client.secure=true -Dzookeeper.clientCnxnSocket=org.apache.zookeeper.ClientCnxnSocketNetty -Dzookeeper.ssl.keyStore.location=$CA/alice.p12 -Dzookeeper.ssl.keyStore.password=volery-bench -Dzookeeper.ssl.trustStore.location=$CA/trust.p12 -Dzookeeper.ssl.trustStore.password=volery-bench"
run() {
  local label=$1
  echo "$(date -u +%H:%M:%S) start $label"
  VOLERY_BENCH_JAVA_OPTS="$CLIENT" EXTRA_CONFIG="$SERVER" WORKLOADS=setdata SYSTEMS="v1" STORAGES=durable CPU_PERCENT=15 RUNS=1 \
    JIT_WARMUP=60 WARMUP=5 DURATION=10 bench/volery-vs-zk.sh --quick /tmp/s33-out/$label > /tmp/s33-out/$label.log 2>&1
  echo "$(date -u +%H:%M:%S) end $label rc=$?"
}
run clienttls1
run clienttls2
