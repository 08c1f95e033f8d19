#!/bin/bash
# Writes the S3PROXY_* and JCLOUDS_* variables into a properties file, as the upstream image's
# run-docker-container.sh does, then runs S3Proxy on it. A file rather than -D flags keeps the credential out of
# the java command line, which anyone sharing the pid namespace can read.
set -euo pipefail
mkdir -p "$JCLOUDS_FILESYSTEM_BASEDIR"

# Properties-file escaping: a backslash starts an escape and a line break ends the value.
prop() {
  local value="${!2-}"
  value="${value//\\/\\\\}"
  printf '%s=%s\n' "$1" "${value//$'\n'/\\n}"
}
umask 077
properties=/tmp/s3proxy.properties
{
  prop s3proxy.endpoint S3PROXY_ENDPOINT
  prop s3proxy.virtual-host S3PROXY_VIRTUALHOST
  prop s3proxy.authorization S3PROXY_AUTHORIZATION
  prop s3proxy.identity S3PROXY_IDENTITY
  prop s3proxy.credential S3PROXY_CREDENTIAL
  prop jclouds.provider JCLOUDS_PROVIDER
  prop jclouds.filesystem.basedir JCLOUDS_FILESYSTEM_BASEDIR
} >"$properties"

# Defaults first, so that S3PROXY_JAVA_OPTS overrides them: the last -XX flag wins, and -Xmx beats the percentage.
read -r -a java_opts <<<"${S3PROXY_JAVA_OPTS:-}"
exec java -XX:MaxRAMPercentage=75 "${java_opts[@]}" -DLOG_LEVEL="$LOG_LEVEL" \
  -Dlogback.statusListenerClass=ch.qos.logback.core.status.NopStatusListener \
  -jar /opt/s3proxy/s3proxy.jar --properties "$properties"
