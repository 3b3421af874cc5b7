# Shared helpers of the bench/ scripts; sourced, not run.
# shellcheck shell=bash

BENCH_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO_DIR="$(cd "$BENCH_DIR/.." && pwd)"
CGROUP_CPU_ROOT="${CGROUP_CPU_ROOT:-/sys/fs/cgroup/cpu}"

die() { echo "$(basename "$0"): $*" >&2; exit 1; }

# Prints the runtime classpath of volery-client (its classes, the ZooKeeper 3.9.5 server and client,
# and the server's metrics-core and snappy-java), compiling the module first. Cached per pom
# checksum in volery-client/target/bench-classpath.txt.
bench_classpath() {
  local target="$REPO_DIR/volery-client/target" cpfile sum
  sum="$(cat "$REPO_DIR/pom.xml" "$REPO_DIR/volery-client/pom.xml" | sha1sum | cut -c1-12)"
  cpfile="$target/bench-classpath-$sum.txt"
  if [ ! -s "$cpfile" ] || [ ! -d "$target/classes/io/volery/bench" ]; then
    local mvn_args=(-B -q -Dstyle.color=never -pl volery-client -am compile dependency:build-classpath
                    "-Dmdep.outputFile=$cpfile" -Dmdep.includeScope=test)
    (cd "$REPO_DIR" && { mvn -o "${mvn_args[@]}" >&2 || mvn "${mvn_args[@]}" >&2; }) \
      || die "could not build volery-client and resolve its classpath with Maven"
  fi
  # The class directories of the reactor modules are this tree's: a copy of the repository (benchmarks
  # run from copies) carries a classpath file written in the original, naming the original's directories.
  local deps; deps="$(tr ':' '\n' < "$cpfile" | sed -E "s#^.*/([^/]+)/target/classes\$#$REPO_DIR/\1/target/classes#" | paste -sd:)"
  echo "$target/classes:$deps"
}

# Prints N distinct TCP ports on 127.0.0.1 that were free a moment ago, space-separated. They come from
# below the kernel's ephemeral range (net.ipv4.ip_local_port_range): a port the OS hands out for binding
# to 0 is also one it may hand to an outgoing connection, and the nodes started first connect to their
# peers while the later ones are still starting (a 4 x 3 cluster lost that race in session 20). The
# Java side does the same (io.eyrie.multicast.LoopbackPorts).
free_ports() {
  python3 - "$1" <<'PY'
import random, socket, sys
n = int(sys.argv[1])
try:
    low = int(open("/proc/sys/net/ipv4/ip_local_port_range").read().split()[0])
except (OSError, ValueError, IndexError):
    low = 32768
top = max(low, 11024)
picked = []
for _ in range(100 * n):
    if len(picked) == n:
        break
    port = random.randrange(10000, top)
    if port in picked:
        continue
    s = socket.socket()
    try:
        s.bind(("127.0.0.1", port))
    except OSError:
        continue
    finally:
        s.close()
    picked.append(port)
if len(picked) < n:
    sys.exit("free_ports: found only %d free ports below %d" % (len(picked), top))
print(" ".join(map(str, picked)))
PY
}

# CPU seconds (user + system) a process has used so far, from /proc; empty if it is gone.
proc_cpu_seconds() {
  local pid="$1" ticks
  [ -r "/proc/$pid/stat" ] || return 0
  ticks="$(getconf CLK_TCK)"
  # Fields 14 and 15 (utime, stime) after the parenthesised command name, which may contain spaces.
  sed 's/^.*) //' "/proc/$pid/stat" | awk -v t="$ticks" '{ printf "%.2f\n", ($12 + $13) / t }'
}

# Sets each server's CPU quota to the cap it was started with (HOME/cap-quota) in its cgroup
# (HOME/cgroup): for servers started with CAP_LATER=1, so that the JIT compiles the hot paths at full
# speed during an uncapped warm-up instead of eating a 15 % quota for minutes of the measurement.
# With SERVER_CPUS (a taskset list, e.g. 0), every thread of each server is then also pinned to those CPUs.
apply_caps() {
  local home
  for home in "$@"; do
    [ -f "$home/cgroup" ] && [ -f "$home/cap-quota" ] || continue
    cat "$home/cap-quota" > "$(cat "$home/cgroup")/cpu.cfs_quota_us"
    pin_server "$home"
  done
}

# pin_server HOME: with SERVER_CPUS, pins every thread of the server whose pid is in HOME/pid to those
# CPUs (threads it starts later inherit the mask). Its JVM keeps the CPU count it started with, so its
# thread pools are those of an unpinned run.
pin_server() {
  [ -n "${SERVER_CPUS:-}" ] && [ -f "$1/pid" ] || return 0
  taskset -a -p -c "$SERVER_CPUS" "$(cat "$1/pid")" >/dev/null || echo "pin_server: could not pin $1" >&2
}

# CPU time (ms) the JIT compiler threads of process PID have used so far.
compiler_cpu_millis() {
  local t total=0 ns
  for t in /proc/"$1"/task/*; do
    case "$(cat "$t/comm" 2>/dev/null)" in
      C1\ CompilerThre*|C2\ CompilerThre*) ns="$(cut -d' ' -f1 "$t/schedstat" 2>/dev/null || echo 0)"; total=$((total + ns / 1000000)) ;;
    esac
  done
  echo "$total"
}

# jit_settle CONNECT MAX_SECONDS PERMILLE [volery-bench layout options]: with JIT_PIDS (the servers'
# pids), 10 s rounds of writes (JIT_SETTLE_WORKLOAD, default "setdata --bytes 100"; JIT_CLIENTS clients, default 64: the load of the measured points;
# lighter load leaves paths uncompiled) while some server's compiler threads used more than PERMILLE
# per mille of a core in the last round, for at most MAX_SECONDS. 12 JVMs sharing 2 cores need several
# times as long as 3 to compile their hot paths, and a C2 that is still compiling under a 6 % cap was
# measured taking 60 % of the quota.
jit_settle() {
  local connect="$1" max="$2" permille="$3"; shift 3
  [ -n "${JIT_PIDS:-}" ] || return 0
  local -a pids; read -r -a pids <<< "$JIT_PIDS"
  local spent=0 worst used i started elapsed
  local -a before
  while [ "$spent" -lt "$max" ]; do
    for i in "${!pids[@]}"; do before[i]="$(compiler_cpu_millis "${pids[i]}")"; done
    started="$(date +%s%N)"
    # shellcheck disable=SC2086
    "$BENCH_DIR/volery-bench" --connect "$connect" --workload ${JIT_SETTLE_WORKLOAD:-setdata --bytes 100} --clients "${JIT_CLIENTS:-64}" --warmup 0 --duration 10 \
      --quiet --out /dev/null "$@" >/dev/null 2>&1 || echo "jit_settle: volery-bench failed" >&2
    # a round lasts longer than its 10 s of load (sessions open and drain): per mille of the wall time
    elapsed=$(( ($(date +%s%N) - started) / 1000000 )); spent=$((spent + elapsed / 1000)); worst=0
    for i in "${!pids[@]}"; do
      used=$(( ($(compiler_cpu_millis "${pids[i]}") - before[i]) * 1000 / (elapsed > 0 ? elapsed : 1) ))
      [ "$used" -le "$worst" ] || worst="$used"
    done
    echo "jit_settle: after ${spent} s: the busiest server's compilers used ${worst} per mille of a core in the last round of $((elapsed / 1000)) s (limit ${permille})" >&2
    [ "$worst" -gt "$permille" ] || return 0
  done
  echo "jit_settle: still compiling after ${max} s; measuring anyway" >&2
}

# jit_warmup CONNECT SECONDS [volery-bench layout options]: drives the servers for SECONDS with
# writes of two sizes, a read mix and the 10 % create/delete mix (every request path the measured runs
# take: without the last, 4 partitions measured the global mix while C2 compiled its paths under the
# cap, session 11: 4x slower), so that their JIT
# has compiled the hot code before the caps go on. Nothing of it is measured. With JIT_PIDS it then
# settles (jit_settle) until no server's compilers use more than JIT_SETTLED_PERMILLE (default 20,
# i.e. 2 % of a core), for at most JIT_MAX seconds in all (default 300).
jit_warmup() {
  local connect="$1" seconds="$2"; shift 2
  [ "$seconds" -gt 0 ] || return 0
  local part=$(( (seconds + 3) / 4 )) w
  for w in "setdata --bytes 100" "setdata --bytes 1000" "mixed-read90 --bytes 100" "createdelete --bytes 100 --global-percent 10"; do
    # shellcheck disable=SC2086
    "$BENCH_DIR/volery-bench" --connect "$connect" --workload $w --clients "${JIT_CLIENTS:-64}" --warmup 0 --duration "$part" \
      --quiet --out /dev/null "$@" >/dev/null 2>&1 || echo "jit_warmup: volery-bench failed ($w)" >&2
  done
  jit_settle "$connect" $(( ${JIT_MAX:-300} - 4 * part )) "${JIT_SETTLED_PERMILLE:-20}" "$@"
}


# saturation DIR LABEL: the best, over the client counts, of the median throughput of DIR/LABEL-c<N>-r<R>.json
# (compare.py's saturation, from plot.py's summary); nothing if there is no such report.
saturation() {
  python3 - "$BENCH_DIR" "$1" "$2" <<'PY'
import sys
sys.path.insert(0, sys.argv[1])
import plot
points = plot.load([sys.argv[2]]).get(sys.argv[3])
if points:
    print(f"{max(r['median'] for r in plot.summarize(points)):.0f}")
PY
}
