#!/bin/bash
# Session 27: cluster CPU per request of the 10 % global mix, 4 partitions in memory, uncapped, ADR 054 on
# (the default) and off (-Dvolery.frontEndAnswers=false), alternately; from the copy at /tmp/brepo27.
cd /tmp/brepo27
for run in on off on2 off2; do
  opts=""; case $run in off*) opts="-Dvolery.frontEndAnswers=false";; esac
  VOLERY_JAVA_OPTS="$opts" PARTITIONS=4 STORAGE=memory WARMUP=40 DURATION=20 bench/cpu-per-request.sh volery /tmp/bench27/cpu-$run \
    -- --workload createdelete --bytes 100 --global-percent 10 --clients 64 --outstanding 25 > /tmp/bench27/cpu-$run.log 2>&1
  echo "cpu-$run rc=$?" >> /tmp/bench27/status
  pkill -9 -f io.volery.server.VoleryMain
done
