#!/usr/bin/env bash
# Installs what the DPDK transport module needs (libdpdk-dev 22.11 and pkg-config) when missing.
# Idempotent; prints what it did. With libdpdk visible to pkg-config, the Maven profile "dpdk"
# activates by itself (transport-dpdk/pom.xml), so the JNI library is built and its tests run.
set -euo pipefail
missing=()
command -v pkg-config >/dev/null 2>&1 || missing+=(pkg-config)
if ! pkg-config --exists libdpdk 2>/dev/null; then
  missing+=(libdpdk-dev)
fi
command -v gcc >/dev/null 2>&1 || missing+=(gcc)
if [ ${#missing[@]} -eq 0 ]; then
  echo "dpdk-setup: libdpdk $(pkg-config --modversion libdpdk) already installed, nothing to do"
  exit 0
fi
if [ "$(id -u)" != 0 ]; then
  echo "dpdk-setup: missing ${missing[*]} and not root: cannot install; the DPDK module's native tests will be skipped" >&2
  exit 0
fi
echo "dpdk-setup: installing ${missing[*]}"
if ! { apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${missing[@]}"; }; then
  # Without DPDK the build still passes: the module's native tests are skipped, not failed.
  echo "dpdk-setup: could not install ${missing[*]}; the DPDK module's native tests will be skipped" >&2
  exit 0
fi
echo "dpdk-setup: installed libdpdk $(pkg-config --modversion libdpdk)"
