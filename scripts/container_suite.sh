#!/usr/bin/env bash
# Issue 31 (LL-1): the Landlock backend's integration suite inside a real Docker container,
# under Docker's default seccomp profile (and AppArmor's where the host has it), as root and as
# the image's user: there bubblewrap cannot make its namespaces, so `[sandbox] backend = "auto"`
# falls back to Landlock, which the suite checks test by test. Also the fallback's own tests
# (BackendFallback.*, with the stand-in inside too), but not the one that needs bubblewrap.
#   scripts/container_suite.sh [BUILD]        # default build
# Skips (exit 0, SKIPPED on stderr) when no container can be run here (no Docker, no daemon,
# no base image: scripts/container_common.sh says which) unless CORDON_CONTAINER_MUST_WORK=1.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${1:-${BUILD:-build}}
filter='LandlockBackend.*:BackendFallback.*-BackendFallback.AKeptFailure*'
exec scripts/container_check.sh --copy "$BUILD/tests/integration_tests" \
  --copy "$BUILD/tests/no_userns" "$BUILD/cordon" \
  env CORDON_MUST_WORK=1 CORDON_TEST_BINARY=/usr/local/bin/cordon \
  CORDON_TEST_NO_USERNS=/usr/local/bin/no_userns CORDON_TEST_LANDLOCK_SETTING=auto \
  integration_tests --gtest_filter="$filter" --gtest_brief=1
