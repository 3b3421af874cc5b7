#!/usr/bin/env bash
# Paired capped 4 x 3 runs of the 10 % global mix (this directory's ceiling.sh, v4 only, which also sums
# the ask counters and volery_exchanges_redundant), alternating the JVM options BEFORE and AFTER on every
# node. Defaults: ADR 042's runs, "before" -Deyrie.lateExchangePatienceMillis=200 (every late exchange
# asked for after one timeout), "after" none (that commit's default patience).
#   [BEFORE=OPTS] [AFTER=OPTS] pairs.sh OUT_DIR [ROUNDS] [WORKLOAD ARGS...]   (default: 2 rounds of the 10 % mix)
#   env as ceiling.sh (PCT, CLIENTS, DUR, ...)
set -euo pipefail
cd "$(dirname "$0")"
out="$1"; rounds="${2:-2}"; shift; [ $# -gt 0 ] && shift
W=("$@"); [ ${#W[@]} -gt 0 ] || W=(--workload createdelete --bytes 100 --global-percent 10)
mkdir -p "$out"
for r in $(seq 1 "$rounds"); do
  for side in before after; do
    vjo="${AFTER:-}"; [ $side = before ] && vjo="${BEFORE--Deyrie.lateExchangePatienceMillis=200}"
    VJO="$vjo" ORDER=v4 ./ceiling.sh "$out/$side-$r" "${W[@]}" > "$out/$side-$r.txt" 2>&1
    echo "$side $r: $(grep '^==' "$out/$side-$r.txt")"
  done
done
