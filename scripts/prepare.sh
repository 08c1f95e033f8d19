# Sourced by start.sh and test.sh: npm dependencies, then the local components and their addresses,
# unless AUDIT_EXTERNAL_STACK=true says the components are provided elsewhere (via the environment).
bash scripts/ensure-deps.sh
if [ "${AUDIT_EXTERNAL_STACK:-false}" != "true" ]; then
  bash infra/local/stack.sh up
  eval "$(bash infra/local/stack.sh env)"
fi
