#!/usr/bin/env bash
# One line of what a test run's length depends on: cores, memory (and a cgroup's limit where one is set), the load,
# and the filesystem that holds the components' data with how long 100 synced 4 KiB writes take there (ZooKeeper,
# Kafka's metadata log and Postgres wait for such writes).
# Usage: machine-facts.sh DIR
set -euo pipefail
dir="$1"
mkdir -p "$dir"
limit=$(cat /sys/fs/cgroup/memory.max /sys/fs/cgroup/memory/memory.limit_in_bytes 2>/dev/null | head -1 || true)
case "$limit" in
  '' | max | 9223372036854771712) limit=none ;;
  *) limit="$((limit / 1048576)) MiB" ;;
esac
probe="$dir/.sync-probe.$$"
began=$(date +%s%N)
dd if=/dev/zero of="$probe" bs=4k count=100 oflag=dsync status=none
synced=$((($(date +%s%N) - began) / 1000000))
rm -f "$probe"
memory=$(free -m | awk '/^Mem:/ { print $2 " MiB, " $7 " MiB available" }')
read -r fs type <<<"$(df -PT "$dir" | awk 'NR == 2 { print $1, $2 }')"
echo "machine: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), memory $memory (cgroup limit: $limit);" \
  "$dir on $type ($fs), 100 synced 4 KiB writes in $synced ms"
