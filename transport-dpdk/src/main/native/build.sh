#!/usr/bin/env bash
# Compiles the JNI library with gcc against the system DPDK (pkg-config libdpdk). Called by the
# Maven profile "dpdk"; arguments: output directory.
set -euo pipefail
out="$1"
here="$(cd "$(dirname "$0")" && pwd)"
if ! pkg-config --exists libdpdk; then
  echo "pkg-config cannot find libdpdk: install libdpdk-dev (or run .ci/dpdk-setup.sh)" >&2
  exit 1
fi
java_home="${JAVA_HOME:-$(dirname "$(dirname "$(readlink -f "$(command -v javac)")")")}"
mkdir -p "$out"
# shellcheck disable=SC2046
gcc -O2 -g -Wall -Wextra -Werror -fPIC -shared -std=gnu11 \
  -I"$java_home/include" -I"$java_home/include/linux" \
  $(pkg-config --cflags libdpdk) \
  -o "$out/libeyriedpdk.so" "$here/eyrie_dpdk.c" \
  $(pkg-config --libs libdpdk)
echo "built $out/libeyriedpdk.so"
