#!/bin/bash
cd /tmp/brepo25
OWNER_AFFINITY=1 WORKLOADS=global SYSTEMS="v4 v1" STORAGES=memory CPU_PERCENT=6 RUNS=1 JIT_WARMUP=120 WARMUP=5 DURATION=10 POINT_CLIENTS=64 bench/volery-vs-zk.sh --quick /tmp/bench25/global > /tmp/bench25/global.log 2>&1
echo "global rc=$?" >> /tmp/bench25/status
pkill -9 -f io.volery.server.VoleryMain
OWNER_AFFINITY=1 SYSTEMS="v1 v2 v4" STORAGES=memory CPU_PERCENT=6 RUNS=3 JIT_WARMUP=60 WARMUP=5 DURATION=10 SWEEP_CLIENTS=64 bench/volery-vs-zk.sh --quick /tmp/bench25/scaling > /tmp/bench25/scaling.log 2>&1
echo "scaling rc=$?" >> /tmp/bench25/status
pkill -9 -f io.volery.server.VoleryMain
