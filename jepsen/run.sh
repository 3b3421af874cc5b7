#!/usr/bin/env bash
# One Jepsen-style test against Volery (or, with --system zookeeper, a ZooKeeper 3.9.5 ensemble):
#   jepsen/run.sh --workload register --nemesis partition-halves,kill --time-limit 300
# Options: --system volery|zookeeper  --workload register|set|unique-ids|queue|transfer
#          --nemesis F1,F2,..|none (kill pause pause-partition partition-halves partition-bridge
#          partition-coordinator partition-partitions restart lose-disk restart-lose-disk)  --time-limit S  --concurrency N
#          --fault-duration S  --nemesis-interval S  --op-timeout MS  --root-share 0..1  --seed N
#          --signals-off (the mutation)  --no-netns  --store DIR (default jepsen/store)
#          --partitions N  --partitioning subtree|hash  --storage durable|memory  --tls
# Results go to STORE/<test>/<time>/: history.edn, results.edn, timeline.html (and linear.html).
# Exit status 0 when the results are valid, 1 when not. Network partitions need root.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(dirname "$here")"
cp_file="$here/target/jepsen.classpath"
checker="$here/target/porcupine-checker"
if [[ ! -f "$cp_file" || ! -x "$checker" \
      || -n "$(find "$root" -path '*/src/main/*' -newer "$cp_file" -type f -print -quit 2>/dev/null)" \
      || -n "$(find "$root" -maxdepth 2 -name pom.xml -newer "$cp_file" -print -quit)" ]]; then
  echo "jepsen: building (Volery, the checker, the classpath)..." >&2
  (cd "$root" && mvn -B -q -ntp -pl jepsen -am package -DskipTests dependency:build-classpath \
      -Dmdep.outputFile=target/jepsen.classpath) >&2
fi
exec java -Xmx512m -XX:+UseSerialGC -cp "$here/src/main/clojure:$(cat "$cp_file")" \
  -Djepsen.checker="$checker" -Djepsen.store="$here/store" clojure.main -m volery.jepsen.core "$@"
