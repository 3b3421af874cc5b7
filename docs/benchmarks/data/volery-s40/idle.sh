#!/bin/bash
# idle.sh DIR [env...]: a 4x3 memory cluster idle; per-thread-class CPU ms/s summed over nodes, 120..170 s
cd /work/main; D=$1; shift
env "$@" STORAGE=memory bench/volery-cluster.sh start 4 $D >/dev/null 2>&1; sleep 110
mapfile -t pids < <(bench/volery-cluster.sh pids $D)
snap(){ for p in ${pids[@]}; do for t in /proc/$p/task/*; do echo "$p:$(basename $t) $(cat $t/comm | tr ' ' _ | sed 's/[-#0-9]*$//;s/-[0-9].*//') $(sed 's/^.*) //' $t/stat | awk '{print $12+$13}')"; done; done; }
snap > $D.s1; sleep 50; snap > $D.s2
bench/volery-cluster.sh stop $D >/dev/null 2>&1
join <(sort $D.s1) <(sort $D.s2) | awk '{d[$2]+=($5-$3)} END {for (k in d) if (d[k]>0) printf "%d %s\n", d[k]*10/50, k}' | sort -rn | head -8 | paste -sd' '
