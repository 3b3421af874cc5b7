#!/usr/bin/env bash
# (Session 23; run from a copy of the repository, nothing else running.)
# What a request costs closed-loop and paced, on one fresh cluster: warmed up uncapped (3 x 30 s), capped,
# one 20 s capped round; then a 45 s closed-loop run and a 45 s run paced at RATE (default: 75 % of the
# closed loop's throughput), each with every node's numeric mntr counters and CPU summed over the cluster
# between seconds 15 and 35. Prints both windows' per-second sums and the per-request figures.
#   paced-counts.sh DIR   env: P (1), PCT (15), STORAGE (durable), CLIENTS (64), RATE, EXTRA_CONFIG, VOLERY_JAVA_OPTS
set -uo pipefail
cd "$(dirname "$0")/../../../.."
D="$1"; rm -rf "$D"
CAP_LATER=1 STORAGE=${STORAGE:-durable} bench/volery-cluster.sh start ${P:-1} "$D" ${PCT:-15} > "$D.connect" 2>"$D.err"
C=$(cat "$D.connect")
L=(--znodes 250 --subtrees 8 --client-per-subtree --owner-affinity --quiet --workload setdata --bytes 100 --clients ${CLIENTS:-64} --warmup 0)
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
d['process_cpu_ms']=(int(st[11])+int(st[12]))*1000.0/os.sysconf('SC_CLK_TCK')
print(json.dumps(d))
PY
done; }
window() { # NAME [volery-bench options]
  local n="$1"; shift
  bench/volery-bench --connect $C "${L[@]}" --duration 45 --out $D.$n.json "$@" 2>/dev/null &
  sleep 15; mntr > $D.$n.m0; local t0=$(date +%s.%N); sleep 20; mntr > $D.$n.m1; local t1=$(date +%s.%N); wait
  echo "$t1 - $t0" | bc > $D.$n.secs
}
window closed
RATE=${RATE:-$(python3 -c "import json; print(int(0.75*json.load(open('$D.closed.json'))['throughputOpsPerSec']))")}
window paced --rate "$RATE"
python3 - "$D" <<'PY'
import json,sys
D=sys.argv[1]
for n in ("closed","paced"):
    rep=json.load(open(f"{D}.{n}.json")); secs=float(open(f"{D}.{n}.secs").read())
    m0=[json.loads(l) for l in open(f"{D}.{n}.m0")]; m1=[json.loads(l) for l in open(f"{D}.{n}.m1")]
    tot={}
    for a,b in zip(m0,m1):
        for k,v in b.items():
            if k in a: tot[k]=tot.get(k,0)+(v-a[k])
    reqs=tot.get('zk_packets_received',0)
    print(f"{n}: rate {rep['config']['rate']:.0f}, ops/s {rep['throughputOpsPerSec']:.0f}, p50 {rep['latencyMicros']['p50']/1000:.1f} ms, "
          f"p99 {rep['latencyMicros']['p99']/1000:.1f} ms; window {secs:.1f} s, client packets/s {reqs/secs:.0f}")
    for k in ('process_cpu_ms','volery_frames_sent','volery_socket_writes','volery_ring_1_decided','volery_ring_0_decided',
              'volery_commands_executed','volery_fetches_sent'):
        if k in tot:
            print(f"  {k}: {tot[k]/secs:.1f}/s, {tot[k]/reqs if reqs else 0:.3f} per client request")
    print("  all:", {k: round(v/secs,1) for k,v in sorted(tot.items()) if v and not k.endswith(('position','_node','_partition'))})
PY
bench/volery-cluster.sh stop "$D" >/dev/null 2>&1; pkill -9 -f io.volery.server.VoleryMain; rm -rf "$D/data"; true
