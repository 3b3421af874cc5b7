#!/usr/bin/env bash
# Paired capped 4 x 3 runs of one workload (ceiling.sh's v4 configuration) of one compiled checkout,
# alternating the executor's held sends off (-Deyrie.holdSends=false, "before") and on ("after"). Session 17
# ran it on 0a5b02d with held-sends.patch applied (ADR 040, rejected; main does not hold, and ignores the flag):
#   pairs.sh OUT_DIR [ROUNDS] [WORKLOAD ARGS...]   (default: 2 rounds of the 10 % global mix)
set -euo pipefail
cd "$(dirname "$0")"
out="$1"; rounds="${2:-2}"; shift; [ $# -gt 0 ] && shift
W=("$@"); [ ${#W[@]} -gt 0 ] || W=(--workload createdelete --bytes 100 --global-percent 10)
mkdir -p "$out"
for r in $(seq 1 "$rounds"); do
  for side in before after; do
    vjo=""; [ $side = before ] && vjo="-Deyrie.holdSends=false"
    VJO="$vjo" ORDER=v4 ./ceiling.sh "$out/$side-$r" "${W[@]}" > "$out/$side-$r.txt" 2>&1
    echo "$side $r: $(grep '^==' "$out/$side-$r.txt")"
  done
done
