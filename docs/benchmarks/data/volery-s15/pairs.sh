#!/usr/bin/env bash
# Paired overload probes of the capped 4 x 3 mix (64 clients, 30 s), alternating two checkouts:
#   pairs.sh BEFORE_REPO AFTER_REPO OUT_DIR [ROUNDS]
# Each checkout must be compiled (volery-server and volery-client) and hold this overload.sh under
# docs/benchmarks/data/volery-s15/. Session 15: BEFORE = 87aef6e, AFTER = ADR 038.
set -euo pipefail
before="$1"; after="$2"; out="$3"; rounds="${4:-2}"
mkdir -p "$out"
for r in $(seq 1 "$rounds"); do
  for side in before after; do
    repo=$before; [ $side = after ] && repo=$after
    CLIENTS=64 DUR=30 "$repo/docs/benchmarks/data/volery-s15/overload.sh" "$out/$side-$r" \
      --workload createdelete --bytes 100 --global-percent 10 > "$out/$side-$r.txt" 2>&1
    echo "$side $r: $(head -1 "$out/$side-$r.txt")"
  done
done
