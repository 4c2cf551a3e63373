#!/usr/bin/env bash
# Runs every test: unit tests, integration tests (as this user, and again as an unprivileged
# user when run as root), a sanitizer tree (AddressSanitizer and UndefinedBehaviorSanitizer)
# that runs the unit tests and gives the integration tests a sanitized cordon, the macOS
# configuration built on Linux, the fuzz targets for a fixed number of inputs, the package, and
# the end-to-end checks with real clients.
#
# The main tree ($BUILD) is built by `make build` before this runs. The other three trees build
# in the background, one after the other and at a lower priority, while the main tree's tests
# run (they mostly wait on sandboxes, so the cores are free for the compiler); each tree's
# tests run as soon as it is built. The phase times are printed at the end.
set -uo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
SAN_BUILD=${SAN_BUILD:-build-asan}
MAC_BUILD=${MAC_BUILD:-build-macos}
FUZZ_BUILD=${FUZZ_BUILD:-build-fuzz}
JOBS=${JOBS:-$(nproc)}
logs=$(mktemp -d /tmp/cordon-test-logs.XXXXXX)
failed=()
phases=()

step() { printf '\n==> %s\n' "$*"; }
# run_step NAME CMD...: runs CMD, records pass/fail and how long it took.
run_step() {
  local name=$1; shift
  local t0=$SECONDS
  if "$@"; then printf '==> %s: passed\n' "$name"; else printf '==> %s: FAILED\n' "$name"; failed+=("$name"); fi
  phases+=("$(printf '%5ss  %s' $((SECONDS - t0)) "$name")")
}
# wait_for NAME: waits for a background build started by build_in_background, prints its
# time (and its log when it failed); the status says whether it built.
wait_for() {
  local name=$1
  while [ ! -f "$logs/$name.rc" ]; do sleep 2; done
  local rc; rc=$(cat "$logs/$name.rc")
  phases+=("$(printf '%5ss  %s (in the background)' "$(cat "$logs/$name.secs")" "$name build")")
  if [ "$rc" -ne 0 ]; then
    tail -n 60 "$logs/$name.log"
    echo "==> $name build: FAILED (log: $logs/$name.log)"
    failed+=("$name build")
    return 1
  fi
}

# The sanitizer tree: GCC, ASan+UBSan, unoptimized; the integration tests run against its cordon.
# (One clang tree for the sanitizers and the fuzz targets was tried: clang 14 with this
# machine's libstdc++ has no C++20 coroutines, which the proxy's Asio code needs.)
build_sanitizer_tree() {
  cmake -S . -B "$SAN_BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Debug -DCORDON_SANITIZE=ON \
    -DCORDON_BENCH=OFF &&
    cmake --build "$SAN_BUILD" -j "$JOBS" --target unit_tests cordon
}
# The fuzz targets: clang and libFuzzer, the pure layers only (scripts/fuzz.sh runs them).
build_fuzz_tree() {
  CC=clang CXX=clang++ cmake -S . -B "$FUZZ_BUILD" -G Ninja -DCORDON_FUZZ=ON -DCORDON_TESTS=OFF \
    -DCORDON_BENCH=OFF -DCMAKE_BUILD_TYPE=RelWithDebInfo &&
    cmake --build "$FUZZ_BUILD" -j "$JOBS" --target fuzz_targets
}
# MAC-5: the macOS configuration (CORDON_PRETEND_MACOS: no libseccomp, no bwrap backend, the
# POSIX process primitive), unoptimized to build fast, only what its suites need.
build_macos_tree() {
  cmake -S . -B "$MAC_BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG=-O0 \
    -DCORDON_PRETEND_MACOS=ON -DCORDON_BENCH=OFF &&
    cmake --build "$MAC_BUILD" -j "$JOBS" --target cordon unit_tests macos_suites posix_process_tests
}
build_in_background() {
  local name t0
  # At a lower priority than the tests (this subshell and the compilers it starts).
  renice -n 10 -p "$BASHPID" >/dev/null 2>&1 || true
  for name in "$@"; do
    t0=$SECONDS
    "build_${name}_tree" >"$logs/$name.log" 2>&1
    echo $? >"$logs/$name.rc.tmp"
    echo $((SECONDS - t0)) >"$logs/$name.secs"
    mv "$logs/$name.rc.tmp" "$logs/$name.rc"
  done
}
builds=()
[ -z "${CORDON_SKIP_SANITIZER:-}" ] && builds+=(sanitizer)
[ -z "${CORDON_SKIP_MACOS_CHECK:-}" ] && builds+=(macos)
builds+=(fuzz)
build_in_background "${builds[@]}" &
background=$!
trap 'kill $background 2>/dev/null; rm -rf "$logs" "${shared:-}"' EXIT

step "unit tests"
run_step "unit tests" "$BUILD/tests/unit_tests" --gtest_brief=1

step "portable sources (MAC-5: Linux-only calls stay in the Linux backend and the host facts)"
run_step "portable sources" ./scripts/check_portable.sh

step "the POSIX process primitive (MAC-5: the one a macOS build links), run here"
run_step "posix process primitive" "$BUILD/tests/posix_process_tests" --gtest_brief=1

step "layers (issue 15: the pure archive calls nothing of the host, and no higher layer)"
run_step "pure archive" ./scripts/check_pure.sh "$BUILD/libcordon_pure.a"
run_step "layer includes" env BUILD="$BUILD" ./scripts/check_layers.sh

step "requirements: docs/requirements.md is current and every requirement id has a test"
run_step "requirements" ./scripts/requirements.py --check

step "integration tests as $(id -un)"
run_step "integration tests ($(id -un))" "$BUILD/tests/integration_tests" --gtest_brief=1

if [ "$(id -u)" -eq 0 ]; then
  user=cordon-test
  if ! id "$user" >/dev/null 2>&1; then
    useradd --system --no-create-home --shell /bin/sh "$user"
  fi
  # The clone may live where that user cannot read (/root): run copies from a shared folder.
  shared=$(mktemp -d /tmp/cordon-test-bin.XXXXXX)
  cp "$BUILD/cordon" "$BUILD/tests/integration_tests" "$shared/"
  chmod 755 "$shared" "$shared"/*
  step "integration tests as the unprivileged user $user"
  run_step "integration tests ($user)" runuser -u "$user" -- env -i PATH=/usr/local/bin:/usr/bin:/bin \
    CORDON_MUST_WORK="${CORDON_MUST_WORK:-}" CORDON_TEST_BINARY="$shared/cordon" \
    "$shared/integration_tests" --gtest_brief=1
fi

step "embedding: an embedder builds against the installed libcordon (pkg-config, find_package) and runs"
run_step "embedding" env BUILD="$BUILD" ./scripts/check_embed.sh

if [ -x scripts/check_package.sh ]; then
  step "package: make package, its contents and dependencies, the unpacked binary (DIST-1, DIST-2)"
  run_step "package" env BUILD="$BUILD" JOBS="$JOBS" ./scripts/check_package.sh
fi

if [ -x scripts/mcp_e2e.sh ]; then
  step "MCP end-to-end with the official TypeScript SDK client"
  run_step "mcp e2e" env BUILD="$BUILD" ./scripts/mcp_e2e.sh
fi

if [ -x scripts/clients_e2e.sh ]; then
  step "the real coding agents (Claude Code, Codex, Gemini CLI) with cordon's setup and hooks, offline"
  run_step "clients e2e" env BUILD="$BUILD" ./scripts/clients_e2e.sh
fi

if [ -z "${CORDON_SKIP_SANITIZER:-}" ]; then
  step "AddressSanitizer and UndefinedBehaviorSanitizer: unit tests, and the integration tests against a sanitized cordon"
  if wait_for sanitizer; then
    run_step "unit tests (asan+ubsan)" "$SAN_BUILD/tests/unit_tests" --gtest_brief=1
    run_step "integration tests (asan+ubsan cordon)" env CORDON_TEST_BINARY="$PWD/$SAN_BUILD/cordon" \
      "$BUILD/tests/integration_tests" --gtest_brief=1
  fi
fi

if [ -z "${CORDON_SKIP_MACOS_CHECK:-}" ]; then
  step "the macOS configuration on Linux: build, the POSIX primitive, the Seatbelt path"
  if wait_for macos; then
    run_step "unit tests (macOS build)" "$MAC_BUILD/tests/unit_tests" --gtest_brief=1
    run_step "posix process primitive (macOS build)" "$MAC_BUILD/tests/posix_process_tests" --gtest_brief=1
    run_step "Seatbelt path (macOS build)" env CORDON_TEST_BINARY="$PWD/$MAC_BUILD/cordon" \
      "$MAC_BUILD/tests/macos_suites" --gtest_brief=1
  fi
fi
step "fuzz targets (a fixed number of inputs each)"
if wait_for fuzz; then
  run_step "fuzz" env FUZZ_BUILD="$FUZZ_BUILD" FUZZ_NO_BUILD=1 ./scripts/fuzz.sh
fi
wait "$background" 2>/dev/null

echo
echo "phase times (seconds; total $SECONDS s):"
printf '  %s\n' "${phases[@]}"
echo
if [ ${#failed[@]} -gt 0 ]; then
  echo "FAILED: ${failed[*]}"
  exit 1
fi
echo "all tests passed"
