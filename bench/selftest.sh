#!/usr/bin/env bash
# Checks of the kit's shell helpers that need no server (run by .ci/run before the smoke runs).
#   bench/selftest.sh
set -euo pipefail
source "$(dirname "$0")/lib.sh"

fail() { echo "selftest: FAIL: $*" >&2; exit 1; }

# free_ports: distinct, bindable, and outside the kernel's ephemeral range, where an outgoing
# connection of a node started earlier could take a port before the node meant to bind it starts.
low="$(cut -f1 /proc/sys/net/ipv4/ip_local_port_range)"
for round in 1 2 3 4 5; do
  read -ra ports <<< "$(free_ports 48)"
  [ "${#ports[@]}" -eq 48 ] || fail "free_ports 48 gave ${#ports[@]} ports: ${ports[*]}"
  [ "$(printf '%s\n' "${ports[@]}" | sort -u | wc -l)" -eq 48 ] || fail "free_ports repeated a port: ${ports[*]}"
  for p in "${ports[@]}"; do
    [[ "$p" =~ ^[0-9]+$ ]] && [ "$p" -ge 1024 ] && [ "$p" -lt "$low" ] \
      || fail "port $p is not below the ephemeral range (starts at $low)"
  done
done
python3 - "${ports[@]}" <<'PY' || fail "a picked port could not be bound"
import socket, sys
socks = []
for p in sys.argv[1:]:
    s = socket.socket(); s.bind(("127.0.0.1", int(p))); socks.append(s)
PY
echo "selftest: free_ports ok (5 x 48 distinct ports below $low)"

# bench_classpath in a copy of the repository: the classpath file the copy carries was written in the
# original and names the original's module class directories; the copy must run its own classes.
copy="$(mktemp -d)"
trap 'rm -rf "$copy"' EXIT
mkdir -p "$copy/volery-client/target/classes/io/volery/bench"
cp "$REPO_DIR/pom.xml" "$copy/pom.xml"; cp "$REPO_DIR/volery-client/pom.xml" "$copy/volery-client/pom.xml"
sum="$(cat "$copy/pom.xml" "$copy/volery-client/pom.xml" | sha1sum | cut -c1-12)"
echo "/the/original/volery-server/target/classes:/the/original/eyrie-core/target/classes:/root/.m2/x/y.jar" \
  > "$copy/volery-client/target/bench-classpath-$sum.txt"
cp_seen="$(REPO_DIR="$copy" bench_classpath)"
[ "$cp_seen" = "$copy/volery-client/target/classes:$copy/volery-server/target/classes:$copy/eyrie-core/target/classes:/root/.m2/x/y.jar" ] \
  || fail "bench_classpath in a copy should name the copy's class directories, got $cp_seen"
echo "selftest: bench_classpath ok (a copy runs its own classes)"
