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
exec /usr/sbin/clickhouse-server --config-file=/etc/clickhouse-server/config.xml
