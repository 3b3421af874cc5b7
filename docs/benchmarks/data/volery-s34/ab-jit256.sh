#!/usr/bin/env bash
set -u
out=/tmp/s34ab; mkdir -p $out
sampler() { # dir
  local d=$1
  while [ ! -f $d/servers/connect ]; do sleep 1; done
  local connect; connect=$(cat $d/servers/connect)
  while [ -f $d/servers/connect ]; do
    python3 - "$connect" >> $d/mntr.log 2>/dev/null <<'PY'
import socket, sys, time
keys = ("volery_requests_in_service", "volery_requests_resent", "volery_local_reply_fallbacks",
        "volery_deliveries_waiting", "volery_commands_executed", "volery_reordered_resends", "zk_outstanding_requests")
row = [time.strftime("%H:%M:%S")]
for hp in sys.argv[1].split(","):
    h, p = hp.rsplit(":", 1)
    try:
        s = socket.create_connection((h, int(p)), 3); s.sendall(b"mntr"); data = b""
        s.settimeout(3)
        while True:
            b = s.recv(65536)
            if not b: break
            data += b
        m = dict(l.split("\t", 1) for l in data.decode().splitlines() if "\t" in l)
        row.append(" ".join("%s=%s" % (k.replace("volery_", ""), m.get(k, "?")) for k in keys))
    except Exception as e:
        row.append("err %s" % e)
print(" | ".join(row))
PY
    sleep 10
  done
}
run() { # name clone extra
  local name=$1 clone=$2 extra=$3; export JIT_CLIENTS
  rm -rf $out/$name; mkdir -p $out/$name
  cd $clone
  ( sampler $out/$name ) &
  local s=$!
  EXTRA_CONFIG="$extra" STORAGE=memory CPU_PERCENT=6 JIT_WARMUP=60 WARMUP=20 DURATION=60 bench/cpu-per-request.sh volery $out/$name -- --workload setdata --bytes 100 --clients 256 --outstanding 25 > $out/$name.txt 2>&1
  kill $s 2>/dev/null
}
JIT_CLIENTS=256 run j256 /tmp/s34c ""
JIT_CLIENTS=256 run j256old /tmp/s34c "globalOutstandingLimit = 100000000"
echo finished > $out/done
