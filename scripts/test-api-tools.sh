#!/usr/bin/env bash
# The served OpenAPI document against the third-party tools users point at it (docs/testing.md, "Third-party API
# tools"): openapi-spec-validator, Spectral's `spectral:oas` ruleset, openapi-typescript, @hey-api/openapi-ts with
# its zod plugin and openapi-python-client (each client must type-check strictly and then work against the gateway),
# and Schemathesis with every check, its stateful phase included. Installs the tools itself (pinned in infra/api-tools), starts ingest, projector and
# gateway on names of their own, prints one line per tool, and exits non-zero if any failed. Logs:
# .data/test-logs/NAME/, where NAME is API_TOOLS_NAME (default api-tools), which also names its work folder under
# .data, so that two runs can go at once (the containers tier's beside the local one's). API_TOOLS_MAX_EXAMPLES
# bounds Schemathesis' test cases per operation and phase.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/prepare.sh
root=$PWD
tools=$root/infra/api-tools
name=${API_TOOLS_NAME:-api-tools}
venv=$root/.data/api-tools-venv
work=$root/.data/$name
logs=$root/.data/test-logs/$name
max_examples=${API_TOOLS_MAX_EXAMPLES:-200}
started=$(date +%s)

source scripts/python-venv.sh
ensure_venv "$venv" "$tools/requirements.txt"
# Under a lock where flock exists (Linux, where two runs can go at once): the second run finds the tools installed.
(
  if command -v flock >/dev/null; then flock 9; fi
  if [ ! -f "$tools/node_modules/.package-lock.json" ] ||
    [ "$tools/package-lock.json" -nt "$tools/node_modules/.package-lock.json" ]; then
    npm ci --prefix "$tools" --no-audit --no-fund --loglevel=error
  fi
) 9>"$root/.data/api-tools-npm.lock"
# The tools by name: the venv's (the Python client generator also calls its ruff) and the npm ones.
export PATH="$VENV_BIN:$tools/node_modules/.bin:$PATH"

rm -rf "$work" "$logs" && mkdir -p "$work" "$logs"
node --import tsx scripts/api-tools-services.ts "$work/services.json" >"$logs/services.log" 2>&1 &
services=$!
# SIGTERM makes it stop the services and drop their databases and topics.
trap 'kill "$services" 2>/dev/null && wait "$services" || true' EXIT
for _ in $(seq 180); do
  [ -s "$work/services.json" ] && break
  kill -0 "$services" 2>/dev/null || { cat "$logs/services.log" >&2; exit 1; }
  sleep 1
done
[ -s "$work/services.json" ] || { echo "the services did not start within 3 minutes" >&2; exit 1; }
field() { node -p "JSON.parse(require('fs').readFileSync('$work/services.json', 'utf8')).$1"; }
base="$(field url)/api/v2/public"
key=$(field key)
doc=$work/openapi.json
curl -sf "$base/openapi.json" -o "$doc"
# Schemathesis' identities (Web Fuzzing Commons' format): the tenant it tests as, and the peer tenant that its
# object_level_authorization check replays the tenant's reads as.
export API_TOOLS_AUTH_FILE=$work/auth.json
cat >"$API_TOOLS_AUTH_FILE" <<EOF
{"auth": [
  {"name": "tenant", "fixedHeaders": [{"name": "Authorization", "value": "Bearer $key"}]},
  {"name": "peer", "fixedHeaders": [{"name": "Authorization", "value": "Bearer $(field peerKey)"}]}
]}
EOF

failed=0
# check NAME SUMMARY-COMMAND COMMAND...: runs COMMAND with its output in $logs/NAME.log, then prints one line,
# with what SUMMARY-COMMAND makes of that log. `set -e` does not hold inside a condition: the steps of each
# COMMAND are chained with &&.
check() {
  local name=$1 summary=$2 log=$logs/$1.log
  shift 2
  if "$@" >"$log" 2>&1; then
    echo "api-tools: $name passed: $($summary "$log")"
  else
    echo "api-tools: $name FAILED: $($summary "$log") (log: $log)"
    failed=$((failed + 1))
  fi
}
last_line() { grep -v '^\s*$' "$1" | tail -1; }

spectral_summary() {
  grep -E 'problems|No results' "$1" | tail -1 | sed 's/^✖ //'
}
typescript_client() {
  local out=$work/typescript
  mkdir -p "$out" &&
    openapi-typescript "$doc" -o "$out/openapi.ts" &&
    cp "$tools/typescript-client.mts" "$out/client.mts" &&
    tsc --strict --noUncheckedIndexedAccess --target es2022 --module nodenext --lib es2022,dom \
      --types node --typeRoots "$tools/node_modules/@types" --outDir "$out/js" "$out/client.mts" &&
    node "$out/js/client.mjs" "$base" "$key"
}
heyapi_client() {
  local out=$work/hey-api
  # The generated code imports zod, found through the tools' own node_modules.
  mkdir -p "$out" && ln -sfn "$tools/node_modules" "$out/node_modules" &&
    openapi-ts -f "$tools/hey-api.config.mjs" -i "$doc" -o "$out/gen" --no-log-file &&
    cp "$tools/hey-api-client.mts" "$out/client.mts" &&
    tsc --strict --noUncheckedIndexedAccess --target es2022 --module nodenext --lib es2022,dom \
      --types node --typeRoots "$tools/node_modules/@types" --outDir "$out/js" "$out/client.mts" &&
    node "$out/js/client.mjs" "$base" "$key"
}
python_client() {
  local out=$work/python
  mkdir -p "$out" &&
    openapi-python-client generate --path "$doc" --config "$tools/python-client.yaml" --meta none \
      --output-path "$out/audit_trail_client" &&
    cp "$tools/python_client_check.py" "$out/" &&
    (cd "$out" && mypy --config-file "$tools/mypy.ini" audit_trail_client python_client_check.py) &&
    python "$out/python_client_check.py" "$base" "$key"
}
schemathesis() {
  # From the work folder: Hypothesis keeps its example database in the current one. Every check but
  # ensure_resource_availability (ST302): Schemathesis infers that creating a webhook endpoint supplies the id of
  # `GET /audit/webhooks/{id}/replay`, and calls the documented 404 before the endpoint's first replay
  # (docs/webhooks.md "Replays") a created resource gone missing; its stateful phase ignores that check's
  # per-operation setting, so it is left out of the run. The document's own links are still followed.
  (cd "$work" && st --config-file "$tools/schemathesis.toml" run "$doc" --url "$base" --checks all \
    --exclude-checks ensure_resource_availability \
    --phases examples,coverage,fuzzing,stateful --max-examples "$max_examples" --seed "$seed" --no-color)
}
schemathesis_summary() {
  local tested cases
  tested=$(grep -E '^ +Tested:' "$1" | awk '{print $2}')
  cases=$(grep -A1 '^Test cases:' "$1" | tail -1 | sed 's/^ *//')
  echo "${tested:-?} operations, ${cases:-no test cases}, seed $seed; $(last_line "$1" | tr -d '=' | sed 's/^ *//;s/ *$//')"
}

# The clients run first: Schemathesis deletes the webhook endpoints they read.
check openapi-spec-validator last_line openapi-spec-validator "$doc"
check spectral spectral_summary spectral lint --ruleset "$tools/spectral.yaml" --fail-severity error "$doc"
check openapi-typescript last_line typescript_client
check hey-api last_line heyapi_client
check openapi-python-client last_line python_client
# A new seed each run explores further; API_TOOLS_SEED repeats a run's.
seed=${API_TOOLS_SEED:-$RANDOM$RANDOM}
check schemathesis schemathesis_summary schemathesis

if [ "$failed" -eq 0 ]; then
  echo "api-tools: every tool passed, in $(($(date +%s) - started)) s"
else
  echo "api-tools: $failed of 6 tools failed, in $(($(date +%s) - started)) s"
  exit 1
fi
