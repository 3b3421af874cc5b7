#!/bin/bash
# Session 27: the goal's global command with ADR 054 (the default) and without it (-Dvolery.frontEndAnswers=false),
# same build, from a copy of the repository (cp -a), one at a time, nothing else running.
cd /tmp/brepo27
mkdir -p /tmp/bench27
OWNER_AFFINITY=1 WORKLOADS=global SYSTEMS="v4 v1" STORAGES=memory CPU_PERCENT=6 RUNS=1 JIT_WARMUP=120 WARMUP=5 DURATION=10 POINT_CLIENTS=64 bench/volery-vs-zk.sh --quick /tmp/bench27/global-on > /tmp/bench27/global-on.log 2>&1
echo "global-on rc=$?" >> /tmp/bench27/status
pkill -9 -f io.volery.server.VoleryMain
VOLERY_JAVA_OPTS="-Dvolery.frontEndAnswers=false" OWNER_AFFINITY=1 WORKLOADS=global SYSTEMS="v4" STORAGES=memory CPU_PERCENT=6 RUNS=1 JIT_WARMUP=120 WARMUP=5 DURATION=10 POINT_CLIENTS=64 bench/volery-vs-zk.sh --quick /tmp/bench27/global-off > /tmp/bench27/global-off.log 2>&1
echo "global-off rc=$?" >> /tmp/bench27/status
pkill -9 -f io.volery.server.VoleryMain
OWNER_AFFINITY=1 WORKLOADS=global SYSTEMS="v4" STORAGES=memory CPU_PERCENT=6 RUNS=1 JIT_WARMUP=120 WARMUP=5 DURATION=10 POINT_CLIENTS=64 bench/volery-vs-zk.sh --quick /tmp/bench27/global-on2 > /tmp/bench27/global-on2.log 2>&1
echo "global-on2 rc=$?" >> /tmp/bench27/status
pkill -9 -f io.volery.server.VoleryMain
VOLERY_JAVA_OPTS="-Dvolery.frontEndAnswers=false" OWNER_AFFINITY=1 WORKLOADS=global SYSTEMS="v4" STORAGES=memory CPU_PERCENT=6 RUNS=1 JIT_WARMUP=120 WARMUP=5 DURATION=10 POINT_CLIENTS=64 bench/volery-vs-zk.sh --quick /tmp/bench27/global-off2 > /tmp/bench27/global-off2.log 2>&1
echo "global-off2 rc=$?" >> /tmp/bench27/status
pkill -9 -f io.volery.server.VoleryMain
