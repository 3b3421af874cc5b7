#!/usr/bin/env bash
# Starts or stops an ensemble of N ZooKeeper 3.9.5 servers, each its own JVM on 127.0.0.1 with
# ports the OS picked, optionally each capped at CPU_PERCENT of one core by a cgroup v1 `cpu` group.
#
#   bench/zk-ensemble.sh start N DIR [CPU_PERCENT]   # prints the connect string
#   bench/zk-ensemble.sh stop N DIR                  # N is ignored: stops every server under DIR
#   bench/zk-ensemble.sh pids DIR                    # the servers' pids, one a line
#   bench/zk-ensemble.sh cap DIR                     # with CAP_LATER=1 at start: apply the CPU caps now
#
# Environment: FORCE_SYNC=yes|no (default yes: fsync on every transaction-log write),
#              ZK_HEAP (default 512m), START_TIMEOUT seconds (default 90),
#              CPU_PERIOD_US (default 20000): the cgroup's cfs period. A quota is spent in bursts and
#              then the group waits for the next period, so a short period makes a capped server
#              behave like a slower CPU instead of one that stops for most of every 100 ms.
set -euo pipefail
source "$(dirname "$0")/lib.sh"

usage() { die "usage: $0 start N DIR [CPU_PERCENT] | stop N DIR | pids DIR | cap DIR"; }

# Answer of the 'srvr' four-letter command on 127.0.0.1:$1, empty if the server does not answer.
srvr() {
  local out
  out="$(timeout 2 bash -c "exec 3<>/dev/tcp/127.0.0.1/$1 && printf srvr >&3 && cat <&3" 2>/dev/null)" || true
  printf '%s' "$out"
}

cgroup_name() { echo "volery-bench-$(echo "$1" | sha1sum | cut -c1-8)-zk-$2"; }

start() {
  local n="$1" dir="$2" cpu="${3:-}"
  [[ "$n" =~ ^[1-9][0-9]*$ ]] || die "N must be a positive number of servers, was '$n'"
  if [ -n "$cpu" ]; then
    [[ "$cpu" =~ ^[1-9][0-9]*$ ]] && [ "$cpu" -le 100 ] || die "CPU_PERCENT must be 1..100 (of one core), was '$cpu'"
    [ -w "$CGROUP_CPU_ROOT" ] || die "cannot write $CGROUP_CPU_ROOT: a cgroup v1 cpu controller and root are needed for CPU_PERCENT"
  fi
  local force_sync="${FORCE_SYNC:-yes}"
  [[ "$force_sync" =~ ^(yes|no)$ ]] || die "FORCE_SYNC must be yes or no, was '$force_sync'"
  mkdir -p "$dir"
  dir="$(cd "$dir" && pwd)"
  if compgen -G "$dir/zk-*/pid" >/dev/null; then
    die "$dir already holds an ensemble; stop it first ($0 stop $n $dir)"
  fi
  local cp; cp="$(bench_classpath)"

  local -a client quorum election ports
  local i
  read -ra ports <<< "$(free_ports $((3 * n)))"
  [ "${#ports[@]}" -eq $((3 * n)) ] || die "could not pick $((3 * n)) free ports"
  for ((i = 1; i <= n; i++)); do
    client[i]="${ports[3 * i - 3]}"; quorum[i]="${ports[3 * i - 2]}"; election[i]="${ports[3 * i - 1]}"
  done

  local servers="" connect=""
  for ((i = 1; i <= n; i++)); do
    servers+="server.$i=127.0.0.1:${quorum[i]}:${election[i]}"$'\n'
    connect+="${connect:+,}127.0.0.1:${client[i]}"
  done

  for ((i = 1; i <= n; i++)); do
    local home="$dir/zk-$i"
    rm -rf "$home"; mkdir -p "$home/data"
    [ "$n" -gt 1 ] && echo "$i" > "$home/data/myid"
    {
      echo "tickTime=2000"
      echo "initLimit=10"
      echo "syncLimit=5"
      echo "dataDir=$home/data"
      echo "clientPort=${client[i]}"
      echo "clientPortAddress=127.0.0.1"
      # All load-generator sessions come from 127.0.0.1; the default cap of 60 per address would refuse them.
      echo "maxClientCnxns=0"
      echo "forceSync=$force_sync"
      echo "admin.enableServer=false"
      echo "4lw.commands.whitelist=srvr,ruok"
      echo "autopurge.purgeInterval=1"
      [ "$n" -gt 1 ] && printf '%s' "$servers"
    } > "$home/zoo.cfg"

    local main=org.apache.zookeeper.server.quorum.QuorumPeerMain
    local -a java_cmd=(java "-Xms${ZK_HEAP:-512m}" "-Xmx${ZK_HEAP:-512m}" -XX:+UseG1GC
      -Dzookeeper.admin.enableServer=false -Dorg.slf4j.simpleLogger.defaultLogLevel=info
      -Dorg.slf4j.simpleLogger.showDateTime=true -cp "$cp" "$main" "$home/zoo.cfg")
    if [ -n "$cpu" ]; then
      local group="$CGROUP_CPU_ROOT/$(cgroup_name "$dir" "$i")"
      mkdir -p "$group"
      local period="${CPU_PERIOD_US:-20000}"
      [ $((period * cpu / 100)) -ge 1000 ] || die "CPU_PERCENT $cpu of a ${period} us period is below the kernel's 1000 us minimum quota"
      echo "$period" > "$group/cpu.cfs_period_us"
      # CAP_LATER=1: the process starts (and warms up) uncapped; `apply_caps` sets the quota later
      echo $((period * cpu / 100)) > "$home/cap-quota"
      if [ "${CAP_LATER:-0}" = 1 ]; then echo -1 > "$group/cpu.cfs_quota_us"; else echo $((period * cpu / 100)) > "$group/cpu.cfs_quota_us"; fi
      echo "$group" > "$home/cgroup"
      # The shell joins the group while it is still single-threaded and then becomes the JVM, so
      # every JVM thread (GC and JIT included) is born inside the group.
      nohup bash -c 'echo $$ > "$1/tasks" && shift && exec "$@"' _ "$group" "${java_cmd[@]}" \
        > "$home/server.log" 2>&1 &
    else
      nohup "${java_cmd[@]}" > "$home/server.log" 2>&1 &
    fi
    echo $! > "$home/pid"
  done

  # Ready when every server answers and, in an ensemble, one of them leads.
  local deadline=$((SECONDS + ${START_TIMEOUT:-90})) modes
  while :; do
    modes=""
    for ((i = 1; i <= n; i++)); do
      kill -0 "$(cat "$dir/zk-$i/pid")" 2>/dev/null || die "server $i exited during start; see $dir/zk-$i/server.log"
      modes+="$(srvr "${client[i]}" | sed -n 's/^Mode: //p') "
    done
    if [ "$n" -eq 1 ] && [[ "$modes" == *standalone* ]]; then break; fi
    if [ "$n" -gt 1 ] && [[ "$modes" == *leader* ]] && [ "$(wc -w <<< "$modes")" -eq "$n" ]; then break; fi
    [ "$SECONDS" -lt "$deadline" ] || die "ensemble not ready after ${START_TIMEOUT:-90} s (modes: $modes); logs under $dir"
    sleep 0.5
  done
  echo "$connect" > "$dir/connect"
  echo "$connect"
}

stop() {
  local dir="$1" pidfile pid home
  [ -d "$dir" ] || return 0
  for pidfile in "$dir"/zk-*/pid; do
    [ -e "$pidfile" ] || continue
    pid="$(cat "$pidfile")"
    kill "$pid" 2>/dev/null || true
  done
  for pidfile in "$dir"/zk-*/pid; do
    [ -e "$pidfile" ] || continue
    pid="$(cat "$pidfile")"
    for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$pid" 2>/dev/null || true
    home="$(dirname "$pidfile")"
    rm -f "$pidfile"
    if [ -f "$home/cgroup" ]; then
      for _ in $(seq 1 50); do rmdir "$(cat "$home/cgroup")" 2>/dev/null && break; sleep 0.1; done
      rm -f "$home/cgroup"
    fi
  done
}

pids() {
  local pidfile
  for pidfile in "$1"/zk-*/pid; do [ -e "$pidfile" ] && cat "$pidfile"; done
  return 0
}

case "${1:-}" in
  start) [ $# -ge 3 ] || usage; start "$2" "$3" "${4:-}" ;;
  stop)  [ $# -ge 3 ] || usage; stop "$3" ;;
  pids)  [ $# -ge 2 ] || usage; pids "$2" ;;
  cap)   [ $# -ge 2 ] || usage; apply_caps "$2"/zk-* ;;
  *) usage ;;
esac
