#!/usr/bin/env bash
# SRV-2: `cordon mcp` driven by the official MCP TypeScript SDK client. Installs the client
# from the lockfile in tests/mcp (npm ci; the npm registry must be reachable the first time),
# then runs tests/mcp/e2e.mjs against the built binary.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
cordon=$(realpath "$BUILD/cordon")
if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
  echo "mcp e2e: node and npm are needed (scripts/deps.sh installs them)" >&2
  exit 1
fi
cd tests/mcp
npm ci --no-audit --no-fund --loglevel=error
node e2e.mjs "$cordon"
