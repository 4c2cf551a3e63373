#!/usr/bin/env bash
# DIST-4 (issue 28): `cordon setup` and `cordon hook` inside the real coding agents, Claude Code,
# Codex and Gemini CLI at the versions pinned in tests/clients/package.json (all three run on
# Node 20), installed from npm into a cache folder, then driven offline by tests/clients/e2e.mjs
# against a scripted model on loopback. As root, the whole run is in a network namespace of its
# own (loopback only). Skips, not fails, when npm is unreachable and CORDON_MUST_WORK is unset.
# Issue 30: Claude Code's background shell through `cordon mcp` too (a dev server started with
# run_in_background, curled by the next command, read and killed).
#   scripts/clients_e2e.sh [claude|codex|gemini ...]
#   CLIENTS_E2E_ROUTES=jobs scripts/clients_e2e.sh claude   # only some routes: mcp, hook, jobs
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
cordon=$(realpath "$BUILD/cordon")
src=$PWD/tests/clients
cache=${CORDON_CLIENTS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/cordon-clients-e2e}
if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
  echo "clients e2e: node and npm are needed (scripts/deps.sh installs them)" >&2
  exit 1
fi
skip() {
  if [ -n "${CORDON_MUST_WORK:-}" ]; then echo "clients e2e: $* (CORDON_MUST_WORK is set)" >&2; exit 1; fi
  echo "clients e2e: SKIPPED: $*" >&2
  exit 0
}
mkdir -p "$cache"
if ! cmp -s "$src/package.json" "$cache/package.json" || [ ! -x "$cache/node_modules/.bin/gemini" ]; then
  cp "$src/package.json" "$cache/package.json"
  (cd "$cache" && timeout 600 npm install --no-audit --no-fund --loglevel=error) ||
    skip "npm could not install the pinned clients (is the registry reachable?)"
fi
run=(node "$src/e2e.mjs" "$cordon" "$cache/node_modules/.bin" "$@")
if [ "$(id -u)" = 0 ] && [ -z "${CORDON_E2E_NETNS:-}" ] && unshare -n true 2>/dev/null; then
  # Loopback only: nothing the clients try can leave the machine.
  exec env CORDON_E2E_NETNS=1 unshare -n sh -c 'ip link set lo up && exec "$@"' sh "${run[@]}"
fi
exec "${run[@]}"
