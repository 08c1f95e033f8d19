# Sourced by start.sh and ops.sh. Development secrets live in .data/secrets.env (mode 600), generated once per
# checkout, so the services and the operator CLI agree (the CLI hashes keys with the same pepper the gateway
# checks them with). A variable already set in the environment wins; deployments set them all themselves.
mkdir -p .data
[ -f .data/secrets.env ] || install -m 600 /dev/null .data/secrets.env
for name in INGEST_TOKEN API_KEY_PEPPER CURSOR_SECRET; do
  if ! grep -q "^${name}=" .data/secrets.env; then
    echo "${name}=$(head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n')" >>.data/secrets.env
  fi
done
while IFS='=' read -r name value; do
  if [ -n "$name" ] && [ -z "${!name:-}" ]; then export "${name}=${value}"; fi
done <.data/secrets.env
