#!/bin/bash
# idlem.sh DIR [env...]: 4x3 idle; ring 0 / ring 1 decided per second and per-thread CPU between 60 and 90 s
cd /work/main; D=$1; shift
env "$@" STORAGE=memory bench/volery-cluster.sh start 4 $D >/dev/null 2>&1; sleep 60
m(){ timeout 2 bash -c "exec 3<>/dev/tcp/127.0.0.1/$(cat $D/node-1/client-port) && printf mntr >&3 && cat <&3" | awk '/ring_0_decided|ring_1_decided/ {print $2}' | paste -sd' '; }
mapfile -t pids < <(bench/volery-cluster.sh pids $D)
snap(){ for p in ${pids[@]}; do for t in /proc/$p/task/*; do echo "$p:$(basename $t) $(cat $t/comm | tr ' ' _ | sed 's/-[0-9].*//;s/[#0-9]*$//') $(sed 's/^.*) //' $t/stat | awk '{print $12+$13}')"; done; done; }
a=$(m); snap > $D.s1; sleep 30; b=$(m); snap > $D.s2
bench/volery-cluster.sh stop $D >/dev/null 2>&1
echo "ring0/ring1 decided per s: $(python3 -c "a='$a'.split(); b='$b'.split(); print([round((int(y)-int(x))/30,1) for x,y in zip(a,b)])")"
join <(sort $D.s1) <(sort $D.s2) | awk '{d[$2]+=($5-$3)} END {for (k in d) if (d[k]>0) printf "%d %s\n", d[k]*10/30, k}' | sort -rn | head -6 | paste -sd' '
