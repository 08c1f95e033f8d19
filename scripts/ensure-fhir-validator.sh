# Sourced by scripts/test.sh before the tiers.
# ensure_fhir_validator: HAPI FHIR's validator jars are in .data/fhir-validator/lib, fetched from Maven Central on the
# first run (infra/fhir-validator/fetch.sh; a no-op once they are there). The integration tests validate FHIR
# resources with it and generate the purpose of use codes from it; fetched here, a tier never waits on a download.
ensure_fhir_validator() {
  bash infra/fhir-validator/fetch.sh >/dev/null
}
