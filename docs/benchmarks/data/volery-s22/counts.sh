#!/usr/bin/env bash
# (Session 22; run from a copy of the repository, nothing else running.)
# A fresh cluster warmed up uncapped (3 x 30 s), capped, one 20 s capped round; then every node's numeric
# mntr counters summed over the cluster, read at seconds 15 and 35 of a 45 s
# volery-bench run on a fresh cluster: per-second rates and per-request figures.
#   counts.sh DIR   env: P (4), PCT (6), STORAGE (memory), CLIENTS (64), BYTES (100), WORKLOAD (createdelete),
#                          WARGS (--global-percent 10), EXTRA_CONFIG, VOLERY_JAVA_OPTS
set -uo pipefail
cd "$(dirname "$0")/../../../.."
D="$1"; rm -rf "$D"
CAP_LATER=1 STORAGE=${STORAGE:-memory} bench/volery-cluster.sh start ${P:-4} "$D" ${PCT:-6} > "$D.connect" 2>"$D.err"
C=$(cat "$D.connect")
L=(--znodes 250 --subtrees 8 --client-per-subtree --owner-affinity --quiet --workload ${WORKLOAD:-createdelete} ${WARGS---global-percent 10} --bytes ${BYTES:-100} --clients ${CLIENTS:-64} --warmup 0)
# JIT first: 3 x 30 s uncapped, then a 20 s capped round (as session 16's probe.sh)
for i in 1 2 3; do bench/volery-bench --connect $C "${L[@]}" --duration 30 --out /dev/null 2>/dev/null; done
bench/volery-cluster.sh cap "$D"
bench/volery-bench --connect $C "${L[@]}" --duration 20 --out /dev/null 2>/dev/null
mntr() { for h in $(ls -d $D/node-* | sort -t- -k2 -n); do python3 - $(cat $h/client-port) $(cat $h/pid) <<'PY'
import socket,sys,json,os
s=socket.create_connection(('127.0.0.1',int(sys.argv[1]))); s.sendall(b'mntr'); out=b''
while True:
    b=s.recv(65536)
    if not b: break
    out+=b
d={}
for l in out.decode().splitlines():
    if '\t' in l:
        k,v=l.split('\t',1)
        try: d[k]=float(v)
        except ValueError: pass
st=open('/proc/%s/stat'%sys.argv[2]).read().rsplit(')',1)[1].split()
d['process_cpu_ms']=(int(st[11])+int(st[12]))*1000.0/os.sysconf('SC_CLK_TCK')  # the node's CPU (utime + stime)
print(json.dumps(d))
PY
done; }
bench/volery-bench --connect $C "${L[@]}" --duration 45 --out $D.json 2>/dev/null &
sleep 15; mntr > $D.m0; t0=$(date +%s.%N); sleep 20; mntr > $D.m1; t1=$(date +%s.%N); wait
python3 - "$D" "$(echo "$t1 - $t0" | bc)" <<'PY'
import json,sys
D,secs=sys.argv[1],float(sys.argv[2])
rep=json.load(open(D+'.json'))
m0=[json.loads(l) for l in open(D+'.m0')]; m1=[json.loads(l) for l in open(D+'.m1')]
tot={}
for a,b in zip(m0,m1):
    for k,v in b.items():
        if k in a: tot[k]=tot.get(k,0)+(v-a[k])
ops=tot.get('volery_commands_executed',0)
print(f"ops/s (whole run) {rep['throughputOpsPerSec']:.0f}; window {secs:.1f} s; cluster sums per second:")
for k in sorted(tot):
    if tot[k] and not k.endswith(('position','_node','_partition')):
        print(f"  {k} {tot[k]/secs:.1f}")
PY
bench/volery-cluster.sh stop "$D" >/dev/null 2>&1; pkill -9 -f io.volery.server.VoleryMain; rm -rf "$D/data"; true
