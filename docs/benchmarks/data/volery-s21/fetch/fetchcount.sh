#!/usr/bin/env bash
# (Session 21; run from a copy of the repository, nothing else running.)
# Catch-up fetches in steady state: a fresh cluster (P partitions, PCT % caps from the start, STORAGE),
# volery-bench for 45 s, the nodes' mntr fetch counters and ring instances read at seconds 15 and 35.
#   fetchcount.sh DIR BYTES   env: P (1), PCT (100), STORAGE (durable), CLIENTS (64), EXTRA_CONFIG
set -uo pipefail
cd "$(dirname "$0")/../../../../.."
D="$1"; B="$2"; rm -rf "$D"
STORAGE=${STORAGE:-durable} bench/volery-cluster.sh start ${P:-1} "$D" ${PCT:-100} > "$D.connect" 2>"$D.err"
C=$(cat "$D.connect")
mntr() { for h in $D/node-*; do python3 - $(cat $h/client-port) <<'PY'
import socket,sys
s=socket.create_connection(('127.0.0.1',int(sys.argv[1]))); s.sendall(b'mntr'); out=b''
while True:
    b=s.recv(65536)
    if not b: break
    out+=b
d=dict(l.split('\t',1) for l in out.decode().splitlines() if '\t' in l)
dec=sum(int(v) for k,v in d.items() if k.startswith('volery_ring_') and k.endswith('_decided'))
print(d.get('volery_fetches_sent'), d.get('volery_fetched_bytes'), dec, d.get('volery_frames_sent'))
PY
done; }
bench/volery-bench --connect $C --znodes 250 --subtrees 8 --client-per-subtree --owner-affinity --quiet --workload setdata --bytes $B --clients ${CLIENTS:-64} --warmup 0 --duration 45 --out $D.json 2>/dev/null &
sleep 15; mntr > $D.m0; t0=$(date +%s.%N); sleep 20; mntr > $D.m1; t1=$(date +%s.%N); wait
ops=$(python3 -c "import json;d=json.load(open('$D.json'));print(round(d['throughputOpsPerSec']))")
echo "bytes=$B ops/s=$ops; per node over $(echo "$t1 - $t0" | bc | cut -c1-5) s: fetches/s, fetched MB/s, ring instances/s"
paste -d' ' $D.m0 $D.m1 | awk -v s="$(echo "$t1 - $t0" | bc)" '{printf "  %.1f %.2f %.1f\n", ($5-$1)/s, ($6-$2)/s/1048576, ($7-$3)/s}'
bench/volery-cluster.sh stop "$D" >/dev/null 2>&1; pkill -9 -f io.volery.server.VoleryMain; rm -rf "$D/data"; true
