#!/usr/bin/env bash
set -euo pipefail
cd "$(dirname "$0")/../../../.."
D="$1"; P="${P:-4}"; PCT="${PCT:-6}"
rm -rf "$D"
VOLERY_JAVA_OPTS="${VJO:-}" CAP_LATER=1 STORAGE=memory bench/volery-cluster.sh start $P "$D" $PCT > "$D.connect" 2>"$D.err"
C=$(cat "$D.connect")
L=(--znodes 250 --subtrees 8 --client-per-subtree --owner-affinity --quiet --workload createdelete --global-percent 10 --clients 64)
for i in 1 2 3; do bench/volery-bench --connect $C "${L[@]}" --warmup 0 --duration 30 --out /dev/null 2>/dev/null; done
bench/volery-cluster.sh cap "$D"
bench/volery-bench --connect $C "${L[@]}" --warmup 0 --duration 20 --out /dev/null 2>/dev/null
m() { for h in $D/node-*; do python3 - $(cat $h/client-port) <<'PY'
import socket,sys
s=socket.create_connection(('127.0.0.1',int(sys.argv[1]))); s.sendall(b'mntr'); out=b''
while True:
    b=s.recv(65536)
    if not b: break
    out+=b
v=dict(l.split('\t',1) for l in out.decode().splitlines() if '\t' in l)
print(v.get('volery_local_reply_fallbacks','0'), v.get('volery_duplicates_answered','0'), v.get('volery_commands_executed','0'))
PY
done | awk '{a+=$1; b+=$2; c+=$3} END {print a, b, c}'; }
for i in 1 2; do
a=$(m)
bench/volery-bench --connect $C "${L[@]}" --warmup 0 --duration 20 --out $D.run$i.json 2>/dev/null
b=$(m)
ops=$(python3 -c "import json;d=json.load(open('$D.run$i.json'));print(round(d['throughputOpsPerSec']))")
echo "run $i ops/s $ops; fallbacks/duplicates answered/executed (cluster, 20 s): $(paste -d' ' <(echo $a) <(echo $b) | awk '{print $4-$1, $5-$2, $6-$3}')"
done
bench/volery-cluster.sh stop "$D" >/dev/null 2>&1 || true
