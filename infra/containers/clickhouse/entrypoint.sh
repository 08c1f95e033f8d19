#!/bin/bash
# The upstream image's user variables: CLICKHOUSE_USER (with CLICKHOUSE_PASSWORD) replaces `default` as the user
# that connects from anywhere; without it, `default` stays loopback-only as in infra/local.
set -euo pipefail
if [[ -n "${CLICKHOUSE_USER:-}" && "$CLICKHOUSE_USER" != default ]]; then
  cat >/etc/clickhouse-server/users.d/zz-default-user.xml <<XML
<?xml version="1.0"?>
<clickhouse>
    <users>
        <${CLICKHOUSE_USER}>
            <password from_env="CLICKHOUSE_PASSWORD"/>
            <networks><ip>::/0</ip></networks>
            <profile>default</profile>
            <quota>default</quota>
        </${CLICKHOUSE_USER}>
    </users>
</clickhouse>
XML
fi
# Not an upstream variable: ClickHouse before 20.x reads every replica's running queries only through remote(),
# which logs in as `default` (docs/operations.md "ClickHouse cluster"), so a cluster of this image lets `default`
# in from its peers' networks (CIDRs, comma-separated). What that needs, and no more: reads (the `reader`
# profile, readonly 2: the initiator's settings still apply) of the `system` database only.
if [[ -n "${CLICKHOUSE_DEFAULT_USER_NETWORKS:-}" ]]; then
  {
    echo '<?xml version="1.0"?>'
    echo '<clickhouse><users><default>'
    echo '<networks replace="replace">'
    IFS=, read -r -a cidrs <<<"$CLICKHOUSE_DEFAULT_USER_NETWORKS"
    for cidr in ::1 127.0.0.1 "${cidrs[@]}"; do echo "<ip>$cidr</ip>"; done
    echo '</networks>'
    echo '<profile>reader</profile>'
    echo '<allow_databases><database>system</database></allow_databases>'
    echo '</default></users></clickhouse>'
  } >/etc/clickhouse-server/users.d/zz-default-networks.xml
fi
exec /usr/sbin/clickhouse-server --config-file=/etc/clickhouse-server/config.xml
