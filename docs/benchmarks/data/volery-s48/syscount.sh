#!/usr/bin/env bash
# Exact system calls of each node over a run's window, counted in the kernel (perf stat on the syscall
# tracepoints; needs root): the same setup as run.sh, then perf stat -p on every node for 30 s.
#   syscount.sh NAME RATE(or 0)        writes /tmp/s48/NAME.perf-node-N and prints calls per request
set -u
HERE="$(cd "$(dirname "$0")" && pwd)"
N=$1; R=$2; mkdir -p /tmp/s48; D=/tmp/s48/$N; cd "$HERE/../../../.."; rm -rf $D
CAP_LATER=1 STORAGE=durable bench/volery-cluster.sh start 1 $D 15 > $D.connect 2>$D.err; C=$(cat $D.connect)
L=(--znodes 1000 --subtrees 8 --client-per-subtree --quiet --workload setdata --bytes 100)
for i in 1 2 3; do bench/volery-bench --connect $C "${L[@]}" --clients 64 --warmup 0 --duration 30 --out /dev/null 2>/dev/null; done
bench/volery-cluster.sh cap $D
RA=(); [ "$R" != 0 ] && RA=(--rate $R)
bench/volery-bench --connect $C "${L[@]}" "${RA[@]}" --clients 64 --warmup 0 --duration 50 --out $D.json 2>/dev/null &
bp=$!
EV=$(for s in fdatasync fsync pwrite64 recvfrom sendto sendmsg read write writev epoll_wait epoll_pwait epoll_pwait2 futex; do printf 'syscalls:sys_enter_%s,' $s; done)
sleep 15
dec0=$(timeout 2 bash -c "exec 3<>/dev/tcp/127.0.0.1/$(cat $D/node-1/client-port) && printf mntr >&3 && cat <&3" | awk '$1=="volery_ring_1_decided"{print $2}')
pp=(); for h in $D/node-*; do perf stat -x, -e "${EV%,}" -p "$(cat $h/pid)" -o "$D.perf-$(basename $h)" -- sleep 30 & pp+=($!); done
wait "${pp[@]}"
dec1=$(timeout 2 bash -c "exec 3<>/dev/tcp/127.0.0.1/$(cat $D/node-1/client-port) && printf mntr >&3 && cat <&3" | awk '$1=="volery_ring_1_decided"{print $2}')
wait $bp
bench/volery-cluster.sh stop $D >/dev/null 2>&1
ops=$(python3 -c "import json;d=json.load(open('$D.json'));print(round(d['throughputOpsPerSec']))")
echo "== $N rate=$R: $ops ops/s; ring 1 decided $(( (dec1 - dec0) / 30 )) instances/s in the window"
for f in $D.perf-node-*; do awk -F, -v ops=$ops -v n=$(basename $f) '$3 ~ /sys_enter_/ {sub("syscalls:sys_enter_","",$3); if ($1+0 > 0) printf "%s %-12s %8.0f/s %6.3f per request\n", n, $3, $1/30, $1/30/ops}' $f; done
