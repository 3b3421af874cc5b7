#!/usr/bin/env bash
# (Session 22; run from a copy of the repository, nothing else running.)
# What an idle P x 3 cluster costs: a fresh memory cluster at PCT % caps, no client; after SETTLE s, the
# frames and socket writes it sends and each node's CPU (utime + stime) over WINDOW s.
#   idle.sh DIR   env: P (4), PCT (6), SETTLE (60), WINDOW (20), EXTRA_CONFIG (e.g. "timeout.heartbeatMillis = 100")
set -uo pipefail
cd "$(dirname "$0")/../../../.."
D="$1"; rm -rf "$D"
STORAGE=memory bench/volery-cluster.sh start ${P:-4} "$D" ${PCT:-6} > "$D.connect" 2>"$D.err"
nodes() { ls -d $D/node-* | sort -t- -k2 -n; }
snap() { for h in $(nodes); do python3 - $(cat $h/client-port) $(cat $h/pid) <<'PY'
import socket,sys
s=socket.create_connection(('127.0.0.1',int(sys.argv[1]))); s.sendall(b'mntr'); out=b''
while True:
    b=s.recv(65536)
    if not b: break
    out+=b
d=dict(l.split('\t',1) for l in out.decode().splitlines() if '\t' in l)
st=open('/proc/%s/stat'%sys.argv[2]).read().rsplit(')',1)[1].split()
print(d['volery_frames_sent'], d['volery_socket_writes'], int(st[11])+int(st[12]))
PY
done; }
sleep ${SETTLE:-60}; snap > $D.s0; t0=$(date +%s.%N); sleep ${WINDOW:-20}; snap > $D.s1; t1=$(date +%s.%N)
paste -d' ' $D.s0 $D.s1 | awk -v s="$(echo "$t1 - $t0" | bc)" -v hz=$(getconf CLK_TCK) '
  {f+=$4-$1; w+=$5-$2; c=($6-$3)/hz/s*1000; printf "node %d: %.1f ms/s CPU, %.0f frames/s\n", NR, c, ($4-$1)/s; tc+=c}
  END {printf "cluster: %.0f frames/s, %.0f socket writes/s, %.1f ms/s CPU (window %.1f s)\n", f/s, w/s, tc, s}'
bench/volery-cluster.sh stop "$D" >/dev/null 2>&1; pkill -9 -f io.volery.server.VoleryMain; rm -rf "$D/data"; true
