#!/bin/bash
# The upstream image's start: zoo.cfg from the ZOO_* variables on the first start (a mounted /conf/zoo.cfg is kept),
# this node's id in /data/myid, then the server in the foreground.
set -euo pipefail
config=/conf/zoo.cfg
if [[ ! -f "$config" ]]; then
  {
    echo "dataDir=/data"
    echo "dataLogDir=/datalog"
    echo "tickTime=${ZOO_TICK_TIME:-2000}"
    echo "initLimit=${ZOO_INIT_LIMIT:-5}"
    echo "syncLimit=${ZOO_SYNC_LIMIT:-2}"
    echo "autopurge.snapRetainCount=${ZOO_AUTOPURGE_SNAPRETAINCOUNT:-3}"
    echo "autopurge.purgeInterval=${ZOO_AUTOPURGE_PURGEINTERVAL:-0}"
    echo "maxClientCnxns=${ZOO_MAX_CLIENT_CNXNS:-60}"
    echo "standaloneEnabled=${ZOO_STANDALONE_ENABLED:-true}"
    echo "admin.enableServer=${ZOO_ADMINSERVER_ENABLED:-false}"
    # Each entry is `server.N=host:quorum:election;clientPort`, separated by spaces.
    for server in ${ZOO_SERVERS:-server.1=localhost:2888:3888;2181}; do echo "$server"; done
    [[ -z "${ZOO_4LW_COMMANDS_WHITELIST:-}" ]] || echo "4lw.commands.whitelist=$ZOO_4LW_COMMANDS_WHITELIST"
  } >"$config"
fi
[[ -f /data/myid ]] || echo "${ZOO_MY_ID:-1}" >/data/myid
read -r -a flags <<<"${JVMFLAGS:--Xmx256m}"
exec java "${flags[@]}" -XX:+UseSerialGC -Djava.awt.headless=true \
  -Dlogback.configurationFile=/opt/zookeeper/logback.xml -cp '/opt/zookeeper/lib/*' \
  org.apache.zookeeper.server.quorum.QuorumPeerMain "$config"
