#!/usr/bin/env bash
# Builds the Porcupine checker to $1. Without Go it says so and leaves no binary: the runs then
# report the linearizability check as unknown instead of passing it.
set -euo pipefail
out="$1"
if ! command -v go >/dev/null 2>&1; then
  for g in /usr/local/go/bin/go /usr/lib/go/bin/go; do [ -x "$g" ] && PATH="$(dirname "$g"):$PATH" && break; done
fi
if ! command -v go >/dev/null 2>&1; then
  echo "jepsen: Go is not installed: the Porcupine checker is not built (install golang-go)" >&2
  rm -f "$out"
  exit 0
fi
GOFLAGS=-mod=mod go build -o "$out" .
