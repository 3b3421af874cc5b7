#!/usr/bin/env bash
# (Session 22; run from a copy of the repository, nothing else running.)
# Messages of one top-level create and one top-level delete at P x 3 (memory, uncapped): a fresh cluster,
# one kazoo client, N creates then N deletes one at a time; the cluster's mntr sums before and after each
# batch, per request: exchanges (signals, values, event parts), asks, frames, socket writes; frames and
# writes less what the idle cluster sends in as long (heartbeats, touches, skips; measured for 5 s first).
#   per-delete.sh DIR   env: P (4), N (60), VOLERY_JAVA_OPTS (e.g. -Dvolery.independentDeletes=false)
set -uo pipefail
cd "$(dirname "$0")/../../../.."
D="$1"; rm -rf "$D"; P=${P:-4}; N=${N:-60}
STORAGE=memory bench/volery-cluster.sh start $P "$D" 100 > "$D.connect" 2>"$D.err"
PY=volery-server/target/kazoo-venv/bin/python
[ -x $PY ] || { python3 -m venv /tmp/kazoo-venv-s22 && /tmp/kazoo-venv-s22/bin/pip -q install kazoo && PY=/tmp/kazoo-venv-s22/bin/python; }
$PY - "$D" "$(cut -d, -f1 "$D.connect")" "$N" <<'PYEOF'
import glob, socket, sys, time
from kazoo.client import KazooClient
D, hosts, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
KEYS = ["volery_exchanges_sent", "volery_asks_sent", "volery_frames_sent", "volery_socket_writes"]
def mntr():
    tot = dict.fromkeys(KEYS, 0)
    for h in glob.glob(D + "/node-*"):
        s = socket.create_connection(("127.0.0.1", int(open(h + "/client-port").read())))
        s.sendall(b"mntr"); out = b""
        while True:
            b = s.recv(65536)
            if not b: break
            out += b
        d = dict(l.split("\t", 1) for l in out.decode().splitlines() if "\t" in l)
        for k in KEYS: tot[k] += int(d[k])
    return tot
def quiet():  # idle touches send no exchanges; let everything in flight settle
    time.sleep(1.5)
    return mntr()
zk = KazooClient(hosts=hosts); zk.start()
for i in range(20):  # warm-up
    zk.create("/warm-%d" % i); zk.delete("/warm-%d" % i)
i0 = quiet(); t0 = time.time(); time.sleep(5); i1 = mntr(); idle = {k: (i1[k] - i0[k]) / (time.time() - t0) for k in KEYS}
a = mntr(); ta = time.time()
for i in range(n): zk.create("/top-%d" % i, b"x")
b = quiet(); tb = time.time()
for i in range(n): zk.delete("/top-%d" % i)
c = quiet(); tc = time.time()
zk.stop()
print("idle cluster, per second: " + ", ".join("%s %.0f" % (k.replace("volery_", ""), idle[k]) for k in KEYS))
for name, x, y, secs in (("create", a, b, tb - ta), ("delete", b, c, tc - tb)):
    print(name + " (less the idle rate over %.1f s): " % secs
          + ", ".join("%s %.1f" % (k.replace("volery_", ""), (y[k] - x[k] - idle[k] * secs) / n) for k in KEYS))
PYEOF
bench/volery-cluster.sh stop "$D" >/dev/null 2>&1; pkill -9 -f io.volery.server.VoleryMain; rm -rf "$D/data"; true
