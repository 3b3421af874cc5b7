#!/bin/bash
# ab.sh: all-global 4x3 memory uncapped CPU per request, old (a5810e2) vs new (HEAD), alternating
for i in 1 2; do
  for v in old new; do
    R=$([ $v = old ] && echo /tmp/s43/old || echo /work/main)
    STORAGE=memory WARMUP=60 DURATION=20 PARTITIONS=4 $R/bench/cpu-per-request.sh volery /tmp/s43/ab-$v-$i -- --workload createdelete --global-percent 100 --clients 64 --outstanding 25 > /tmp/s43/ab-$v-$i.txt 2>&1
    echo "$v $i $(tail -2 /tmp/s43/ab-$v-$i.txt | paste -sd' ')"
  done
done
