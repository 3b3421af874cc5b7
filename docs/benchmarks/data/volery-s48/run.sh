# run.sh NAME RATE(or 0) [extra java opts]: fresh 1x3 durable cluster, 3x30 s uncapped warm-up, capped, 50 s run, per-thread CPU 15..45 s
set -u
HERE="$(cd "$(dirname "$0")" && pwd)"
N=$1; R=$2; mkdir -p /tmp/s48; D=/tmp/s48/$N; cd "$HERE/../../../.."; rm -rf $D
VOLERY_JAVA_OPTS="${3:-}" CAP_LATER=1 STORAGE=durable bench/volery-cluster.sh start 1 $D 15 > $D.connect 2>$D.err; C=$(cat $D.connect)
L=(--znodes 1000 --subtrees 8 --client-per-subtree --quiet --workload setdata --bytes 100)
[ "${SKIP1:-0}" = 1 ] && C=${C#*,}
echo "connect $C" >&2
for i in 1 2 3; do bench/volery-bench --connect $C "${L[@]}" --clients 64 --warmup 0 --duration 30 --out /dev/null 2>/dev/null; done
bench/volery-cluster.sh cap $D
RA=(); [ "$R" != 0 ] && RA=(--rate $R)
bench/volery-bench --connect $C "${L[@]}" "${RA[@]}" --clients 64 --warmup 0 --duration 50 --out $D.json 2>/dev/null &
sleep 15; for h in $D/node-*; do timeout 2 bash -c "exec 3<>/dev/tcp/127.0.0.1/$(cat $h/client-port) && printf mntr >&3 && cat <&3" | grep -E "alive_conn"; done >&2; bash "$HERE/thcpu.sh" $D > $D.th0; for h in $D/node-*; do awk '$1=="syscr:"{r=$2} $1=="syscw:"{w=$2} END{print r, w}' /proc/$(cat $h/pid)/io; done > $D.io0
sleep 30; bash "$HERE/thcpu.sh" $D > $D.th1; for h in $D/node-*; do awk '$1=="syscr:"{r=$2} $1=="syscw:"{w=$2} END{print r, w}' /proc/$(cat $h/pid)/io; done > $D.io1; wait
bench/volery-cluster.sh stop $D >/dev/null 2>&1
ops=$(python3 -c "import json;d=json.load(open('$D.json'));print(round(d['throughputOpsPerSec']), round(d['latencyMicros']['p50']/1000), round(d['latencyMicros']['p99']/1000))")
echo "== $N rate=$R: ops/s p50 p99 ms: $ops"
join <(awk '{print $1"/"$2, $3}' $D.th0) <(awk '{print $1"/"$2, $3}' $D.th1) | awk -v ops=${ops%% *} '{d=($3-$2)*10/30; t+=d; if (d>0.5) printf "%-40s %6.1f ms/s %5.2f us/req\n", $1, d, d*1000/ops} END {printf "total %.1f ms/s, %.1f us/req\n", t, t*1000/ops}'
