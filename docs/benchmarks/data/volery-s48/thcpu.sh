# per-thread-group CPU ticks of every node: thcpu.sh DIR > file
for h in $1/node-*; do pid=$(cat $h/pid); for t in /proc/$pid/task/*; do
  name=$(cat $t/comm 2>/dev/null | sed 's/[0-9]\+/#/g; s/ /_/g'); ticks=$(awk '{print $14+$15}' $t/stat 2>/dev/null)
  echo "$(basename $h) $name $ticks"; done; done | awk '{s[$1" "$2]+=$3} END {for (k in s) print k, s[k]}' | sort
