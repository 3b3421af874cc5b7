#!/usr/bin/env bash
# Does the JIT settle in a capped 4 x 3 cluster under the 10 % global mix? PrintCompilation on every node;
# counts compilations and "made not entrant" per node per phase.
set -uo pipefail
cd "$(dirname "$0")/../../../.."
D=${OUT:-/tmp/s29p}/jit; rm -rf $D
VOLERY_JAVA_OPTS="-XX:+PrintCompilation ${VJO:-}" CAP_LATER=1 STORAGE=memory bench/volery-cluster.sh start 4 $D ${PCT:-6} > $D.connect 2>$D.err
C=$(cat $D.connect)
L=(--znodes 250 --subtrees 8 --client-per-subtree --owner-affinity --quiet --workload createdelete --global-percent 10 --bytes 100 --clients ${CLIENTS:-64} --warmup 0)
mark() { for n in $(seq 1 12); do echo "$1 node-$n $(grep -c '::\| %\|made not entrant' $D/node-$n/server.log) $(grep -c 'made not entrant' $D/node-$n/server.log)"; done >> $D.marks; }
mark start
for i in 1 2 3; do bench/volery-bench --connect $C "${L[@]}" --duration 30 --out $D.w$i.json 2>/dev/null; mark warm$i; done
bench/volery-cluster.sh cap $D
for i in 1 2 3 4 5 6; do bench/volery-bench --connect $C "${L[@]}" --duration 30 --out $D.c$i.json 2>/dev/null; mark capped$i; done
for f in $D.w1 $D.w2 $D.w3 $D.c1 $D.c2 $D.c3 $D.c4 $D.c5 $D.c6; do python3 -c "import json;d=json.load(open('$f.json'));print('$f', round(d['throughputOpsPerSec']), round(d['latencyMicros']['p50']/1000))"; done
bench/volery-cluster.sh stop $D >/dev/null 2>&1; pkill -9 -f io.volery.server.VoleryMain; true
