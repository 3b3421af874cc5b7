#!/usr/bin/env bash
set -euo pipefail
cd "$(dirname "$0")/../../../.."
D="$1"; P="$2"
rm -rf "$D"
STORAGE=memory bench/volery-cluster.sh start $P "$D" > "$D.connect" 2>"$D.err"
C=$(cat "$D.connect")
L=(--znodes 250 --subtrees 8 --client-per-subtree --owner-affinity --quiet)
bench/volery-bench --connect $C --workload createdelete --global-percent 10 --bytes 100 --clients 16 --warmup 0 --duration ${WARMDUR:-20} "${L[@]}" --out /dev/null 2>/dev/null
snap() { for f in $D/node-*/pid; do p=$(cat $f); for t in /proc/$p/task/*; do st=$(cat $t/stat 2>/dev/null) || continue; n=$(sed 's/.*(\(.*\)).*/\1/' <<<"$st" | tr ' ' _); r=$(sed 's/.*) //' <<<"$st"); echo "$f ${t##*/} $n $(awk '{print $12+$13}' <<<"$r")"; done; done; }
for round in 1 2 3; do
sleep ${GAP:-5}
snap > $D.a; sleep 10; snap > $D.b
python3 - $D.a $D.b <<'PY'
import sys,collections
def rd(f):
    m={}
    for l in open(f):
        node,tid,name,t=l.split(); m[(node,tid)]=(name,int(t))
    return m
a=rd(sys.argv[1]); b=rd(sys.argv[2])
byname=collections.Counter(); pernode=collections.Counter()
for k,(n,t) in b.items():
    d=t-a.get(k,(n,0))[1]
    import re
    nn=re.sub(r'[-#]?\d+$','',n)
    byname[nn]+=d*10/10; pernode[k[0].split('/')[-2]]+=d
print("total ms/s", sum(byname.values()), "top threads:", byname.most_common(8))
PY
done
bench/volery-cluster.sh stop "$D" >/dev/null 2>&1 || true
