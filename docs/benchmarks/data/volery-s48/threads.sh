#!/usr/bin/env bash
# CPU of each node's thread groups between the two snapshots of a run.sh run: threads.sh NAME (threads/NAME.*)
cd "$(dirname "$0")/threads"
ops=$(python3 -c "import json;print(round(json.load(open('$1.summary.json'))['throughputOpsPerSec']))")
echo "== $1: $ops ops/s"
join <(awk '{print $1"/"$2, $3}' $1.th0) <(awk '{print $1"/"$2, $3}' $1.th1) | awk -v ops=$ops '{d=($3-$2)*10/30; t+=d; n=substr($1,1,6); s[n]+=d; if (d>0.5) printf "%-40s %6.1f ms/s %5.2f us/req\n", $1, d, d*1000/ops} END {for (k in s) printf "%s total %.1f ms/s\n", k, s[k]; printf "all %.1f ms/s, %.1f us/req\n", t, t*1000/ops}'
