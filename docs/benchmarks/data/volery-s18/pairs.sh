#!/usr/bin/env bash
# Paired capped 4 x 3 runs of the 10 % global mix (ceiling.sh's v4 configuration, this session's copy, which
# also sums volery_reordered_resends), alternating ADR 041 off (-Dvolery.pipelineBehindMulti=false, "before":
# a session's request behind a top-level create or delete waits for its answer) and on ("after").
# optimistic/ holds one pair of an earlier form of ADR 041 (1e4d8d6: sent at once, refused if overtaken).
#   pairs.sh OUT_DIR [ROUNDS] [WORKLOAD ARGS...]   (default: 2 rounds of the 10 % global mix)
set -euo pipefail
cd "$(dirname "$0")"
out="$1"; rounds="${2:-2}"; shift; [ $# -gt 0 ] && shift
W=("$@"); [ ${#W[@]} -gt 0 ] || W=(--workload createdelete --bytes 100 --global-percent 10)
mkdir -p "$out"
for r in $(seq 1 "$rounds"); do
  for side in before after; do
    vjo=""; [ $side = before ] && vjo="-Dvolery.pipelineBehindMulti=false"
    VJO="$vjo" ORDER=v4 ./ceiling.sh "$out/$side-$r" "${W[@]}" > "$out/$side-$r.txt" 2>&1
    echo "$side $r: $(grep '^==' "$out/$side-$r.txt")"
  done
done
