#!/usr/bin/env bash
# Fetches HAPI FHIR's R4 validator (pom.xml here) from Maven Central into $DATA_DIR/fhir-validator/lib once, and
# prints that folder; when the jars are there already it only prints it. The tests run ValidateFhir.java from it
# (test/support/fhir-validator.ts). Messages go to stderr, so that stdout is the folder alone.
# It reuses the local stack's helpers (infra/local/lib/common.sh): the same DATA_DIR, apt and failure reports.
set -euo pipefail

# shellcheck source=../local/lib/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/../local/lib/common.sh"

FHIR_POM="$REPO_ROOT/infra/fhir-validator/pom.xml"
init_data_dir
FHIR_HOME="$DATA_DIR/fhir-validator"
FHIR_LIB="$FHIR_HOME/lib"

hapi_version() {
  sed -n 's:.*<hapi.version>\(.*\)</hapi.version>.*:\1:p' "$FHIR_POM" | head -n1
}

# The marker ties the jars to the pom that produced them, and is written last: a folder that has it is complete.
want="hapi-fhir $(hapi_version) pom-sha256 $(sha256sum "$FHIR_POM" | cut -c1-64)"
installed() { [[ -f "$FHIR_LIB/.installed" && "$(<"$FHIR_LIB/.installed")" == "$want" ]]; }

if ! installed; then
  mkdir -p "$FHIR_HOME"
  # One run fetches; another one started meanwhile (the containers tier beside the others) waits and finds the jars.
  exec 9>"$FHIR_HOME/.fetch.lock"
  flock -w 900 9 || die "another fetch of the FHIR validator is still running (lock: $FHIR_HOME/.fetch.lock)"
fi
if ! installed; then
  # The single-file source launcher (java File.java) needs the JDK's compiler, which a JRE lacks. The purpose of
  # use generator (scripts/generate-purpose-of-use.ts) reads a code system out of one of the jars with unzip.
  need_pkg fhir-validator openjdk-17-jdk-headless sh -c 'java --list-modules | grep -q "^jdk.compiler@"'
  need_pkg fhir-validator maven command -v mvn
  need_pkg fhir-validator unzip command -v unzip
  apt_install_queued

  log="$LOG_DIR/maven-fhir-validator.log" tmp="$FHIR_HOME/lib.tmp"
  rm -rf "$tmp"
  note "fhir-validator: fetching HAPI FHIR $(hapi_version) jars from Maven Central (log: $log)"
  if ! mvn -q -B -f "$FHIR_POM" dependency:copy-dependencies \
    -DoutputDirectory="$tmp" -DincludeScope=runtime >"$log" 2>&1 </dev/null; then
    fail fhir-validator "maven could not fetch the HAPI FHIR jars" "$log"
  fi
  [[ -f "$tmp/hapi-fhir-validation-$(hapi_version).jar" ]] ||
    fail fhir-validator "hapi-fhir-validation-$(hapi_version).jar missing after maven run" "$log"
  echo "$want" >"$tmp/.installed"
  rm -rf "$FHIR_LIB"
  mv "$tmp" "$FHIR_LIB"
fi
echo "$FHIR_LIB"
