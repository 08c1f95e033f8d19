# ZooKeeper 3.8 ensemble of three nodes, from Maven Central jars, run with plain java.
# shellcheck shell=bash

ZK_POM="$CLUSTER_DIR/zookeeper/pom.xml"

zk_home() { echo "$CLUSTER_HOME/$1"; }
zk_lib() { echo "$CLUSTER_HOME/zookeeper/lib"; }

zk_queue_install() {
  need_pkg zookeeper openjdk-17-jre-headless command -v java
  need_pkg zookeeper maven command -v mvn
}

# As kafka_install_jars does: the marker ties the jars to the pom that produced them.
zk_install_jars() {
  local lib tmp ver want log="$LOG_DIR/maven-zookeeper.log"
  lib="$(zk_lib)"
  tmp="$lib.tmp"
  ver="$(sed -n 's:.*<zookeeper.version>\(.*\)</zookeeper.version>.*:\1:p' "$ZK_POM" | head -n1)"
  want="zookeeper $ver pom-sha256 $(sha256sum "$ZK_POM" | cut -c1-64)"
  [[ -f "$lib/.installed" && "$(<"$lib/.installed")" == "$want" ]] && return 0
  note "zookeeper: fetching ZooKeeper $ver jars from Maven Central (log: $log)"
  rm -rf "$tmp"
  mvn -q -B -f "$ZK_POM" dependency:copy-dependencies -DoutputDirectory="$tmp" -DincludeScope=runtime \
    >"$log" 2>&1 </dev/null || fail zookeeper "maven could not fetch the ZooKeeper jars" "$log"
  [[ -f "$tmp/zookeeper-$ver.jar" ]] || fail zookeeper "zookeeper-$ver.jar missing after maven run" "$log"
  echo "$want" >"$tmp/.installed"
  rm -rf "$lib"
  mv "$tmp" "$lib"
}

# Client, quorum and election port of node k.
zk_ports() {
  local k
  k="$(node_index "$1")"
  echo "$((CLUSTER_ZK_CLIENT_PORT + k - 1)) $((CLUSTER_ZK_QUORUM_PORT + k - 1)) $((CLUSTER_ZK_ELECTION_PORT + k - 1))"
}

zk_pid() { read_pid "$(zk_home "$1")/zookeeper.pid"; }
zk_match() { echo "QuorumPeerMain $(zk_home "$1")/zoo.cfg"; }
zk_logs() { printf '%s\n' "$(zk_home "$1")/zookeeper.log" "$(zk_home "$1")/console.log"; }
zk_addr() { echo "$HOST:$((CLUSTER_ZK_CLIENT_PORT + $(node_index "$1") - 1))"; }

# The node's role from the `srvr` command: leader or follower once the quorum serves, nothing before.
zk_mode() {
  local port=$((CLUSTER_ZK_CLIENT_PORT + $(node_index "$1") - 1))
  # shellcheck disable=SC2016 # $0 belongs to the inner shell.
  timeout 2 bash -c 'exec 3<>"/dev/tcp/127.0.0.1/$0" && echo srvr >&3 && cat <&3' "$port" 2>/dev/null |
    sed -n 's/^Mode: //p'
}

zk_ready() { [[ "$(zk_mode "$1")" =~ ^(leader|follower)$ ]]; }
zk_detail() { echo " ($(zk_mode "$1"))"; }

zk_launch() {
  local name="$1" home k i
  home="$(zk_home "$name")"
  k="$(node_index "$name")"
  # shellcheck disable=SC2034 # render reads these by name.
  local ZK_ID="$k" ZK_DATA="$home/data" ZK_CLIENT_PORT=$((CLUSTER_ZK_CLIENT_PORT + k - 1))
  for i in 1 2 3; do
    local "ZK_QUORUM_$i=$((CLUSTER_ZK_QUORUM_PORT + i - 1))" "ZK_ELECTION_$i=$((CLUSTER_ZK_ELECTION_PORT + i - 1))"
  done
  mkdir -p "$ZK_DATA"
  echo "$k" >"$ZK_DATA/myid"
  render "$CLUSTER_DIR/zookeeper/zoo.cfg" "$home/zoo.cfg" ZK_ID ZK_DATA ZK_CLIENT_PORT \
    ZK_QUORUM_1 ZK_ELECTION_1 ZK_QUORUM_2 ZK_ELECTION_2 ZK_QUORUM_3 ZK_ELECTION_3
  local heap
  # Word-split on purpose: the variable holds several JVM flags.
  read -r -a heap <<<"${CLUSTER_ZK_HEAP_OPTS:--Xmx128m}"
  # The serial collector and the GC log: a small heap's overhead stays small, and the log shows its headroom.
  (cd "$home" && launch_detached "$home/zookeeper.pid" "$home/console.log" java "${heap[@]}" \
    -XX:+UseSerialGC -Xlog:gc:file="$home/gc.log":time:filecount=2,filesize=5m -Djava.awt.headless=true \
    -Dzookeeper.log.dir="$home" -Dlogback.configurationFile="$CLUSTER_DIR/zookeeper/logback.xml" \
    -cp "$(zk_lib)/*" org.apache.zookeeper.server.quorum.QuorumPeerMain "$home/zoo.cfg") ||
    proc_fail "$name" "the java process did not start"
}
