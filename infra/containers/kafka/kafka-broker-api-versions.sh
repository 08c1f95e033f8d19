#!/bin/sh
# The upstream image's health-check tool: asks the broker for its API versions.
exec java -Xmx128m -cp '/opt/kafka/libs/*' -Dlog4j.configuration=file:/opt/kafka/config/tools-log4j.properties \
  kafka.admin.BrokerApiVersionsCommand "$@"
