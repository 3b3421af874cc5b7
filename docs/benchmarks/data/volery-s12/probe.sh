#!/usr/bin/env bash
# usage: [WARM=N] [KEEP=1] [CAP=PERCENT] probe.sh DIR P WORKLOAD_ARGS...   uncapped PxN memory cluster; warm-up N (default 2) x 20 s; 10 s measured
# inside a 20 s run: per-thread CPU, syscalls and mntr before/after (DIR/node-N/{threads,io,mntr}-{a,b})
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"; cd "$HERE/../../../.."
D="$1"; P="$2"; shift 2
rm -rf "$D"
STORAGE=memory CAP_LATER=1 VOLERY_JAVA_OPTS="${VOLERY_JAVA_OPTS:-}" bench/volery-cluster.sh start $P "$D" ${CAP:-} > "$D.connect" 2>"$D.err"
C=$(cat "$D.connect")
L=(--znodes 250 --subtrees 8 --client-per-subtree --owner-affinity --quiet)
for i in $(seq ${WARM:-2}); do bench/volery-bench --connect $C "$@" --warmup 0 --duration 20 "${L[@]}" --out /dev/null 2>/dev/null; done
if [ -n "${CAP:-}" ]; then
  # capped after the uncapped warm-up (as bench/volery-vs-zk.sh does), then two capped rounds to settle
  bench/volery-cluster.sh cap "$D"
  for i in 1 2; do bench/volery-bench --connect $C "$@" --warmup 0 --duration 20 "${L[@]}" --out /dev/null 2>/dev/null; done
fi
snap() { python3 - "$D" "$1" <<'PY'
import socket,sys,glob,os,time
d,tag=sys.argv[1],sys.argv[2]
nodes=sorted(glob.glob(d+'/node-*'), key=lambda s:int(s.split('-')[-1]))
for nd in nodes:
    pid=open(nd+'/pid').read().strip()
    with open(nd+'/threads-'+tag,'w') as f:
        f.write('%f\n'%time.time())
        for t in os.listdir('/proc/%s/task'%pid):
            try:
                st=open('/proc/%s/task/%s/stat'%(pid,t)).read()
                name=st[st.index('(')+1:st.rindex(')')]; rest=st[st.rindex(')')+2:].split()
                f.write('%s\t%s\t%d\n'%(t,name,int(rest[11])+int(rest[12])))
            except Exception: pass
    open(nd+'/io-'+tag,'w').write(open('/proc/%s/io'%pid).read())
for nd in nodes:
    port=int(open(nd+'/client-port').read())
    s=socket.create_connection(('127.0.0.1',port)); s.sendall(b'mntr'); out=b''
    while True:
        b=s.recv(65536)
        if not b: break
        out+=b
    open(nd+'/mntr-'+tag,'w').write(out.decode())
PY
}
bench/volery-bench --connect $C "$@" --warmup 3 --duration 20 "${L[@]}" --out "$D.json" 2>/dev/null &
b=$!
sleep 7; snap a; sleep 10; snap b
wait $b
python3 "$HERE/report.py" "$D" | tee "$D.report"
[ -n "${KEEP:-}" ] || bench/volery-cluster.sh stop "$D" >/dev/null 2>&1
