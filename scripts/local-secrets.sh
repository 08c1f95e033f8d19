# Sourced. Development secrets live in .data/secrets.env (mode 600), so the services and the operator CLI agree
# (the CLI hashes keys with the pepper the gateway checks them with). A variable already set in the environment
# wins. Only `npm start` creates missing ones (ensure_dev_secrets); the CLI only reads them (load_dev_secrets), so
# it never invents a pepper no gateway knows.
ensure_dev_secrets() {
  mkdir -p .data
  [ -f .data/secrets.env ] || install -m 600 /dev/null .data/secrets.env
  local name
  # The services' database roles' passwords too (docs/operations.md "Database roles").
  for name in INGEST_TOKEN API_KEY_PEPPER CURSOR_SECRET WEBHOOK_SECRET_KEY GATEWAY_DATABASE_PASSWORD \
    PROJECTOR_DATABASE_PASSWORD DISPATCHER_DATABASE_PASSWORD EXPORTER_DATABASE_PASSWORD NOTARY_DATABASE_PASSWORD \
    CUSTODIAN_DATABASE_PASSWORD; do
    if ! grep -q "^${name}=" .data/secrets.env; then
      echo "${name}=$(head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n')" >>.data/secrets.env
    fi
  done
}

load_dev_secrets() {
  [ -f .data/secrets.env ] || return 0
  local name value
  while IFS='=' read -r name value; do
    if [ -n "$name" ] && [ -z "${!name:-}" ]; then export "${name}=${value}"; fi
  done <.data/secrets.env
}
