# Sourced by start.sh: Node 24, npm dependencies, then the local components and their addresses,
# unless AUDIT_EXTERNAL_STACK=true says the components are provided elsewhere (via the environment).
source scripts/ensure-node.sh
bash scripts/ensure-deps.sh
if [ "${AUDIT_EXTERNAL_STACK:-false}" != "true" ]; then
  bash infra/local/stack.sh up
  eval "$(bash infra/local/stack.sh env)"
fi
