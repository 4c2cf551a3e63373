#!/usr/bin/env bash
# Runs every test: unit tests, integration tests (the binary's and the library's, as this user
# and again as an unprivileged user when run as root, side by side by scripts/run_gtests.sh),
# a sanitizer tree (clang: AddressSanitizer, UndefinedBehaviorSanitizer and libFuzzer's
# coverage) that runs the unit and library tests, gives the integration tests a sanitized
# cordon and runs the fuzz targets for a fixed number of inputs, the macOS configuration built
# on Linux, the package, and the end-to-end checks with real clients.
#
# The main tree ($BUILD) is built first (`make build`, a timed phase). The other two trees build
# in the background, one after the other and at a lower priority, while the main tree's tests
# run (they mostly wait on sandboxes, so the cores are free for the compiler); each tree's
# tests run as soon as it is built. The phase times are printed at the end.
set -uo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
SAN_BUILD=${SAN_BUILD:-build-san}
MAC_BUILD=${MAC_BUILD:-build-macos}
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

# The sanitizer tree (clang; scripts/build_sanitizer_tree.sh): the unit and library tests, a
# sanitized cordon for the integration tests, and the fuzz targets.
build_sanitizer_tree() {
  SAN_BUILD=$SAN_BUILD JOBS=$JOBS ./scripts/build_sanitizer_tree.sh
}
# MAC-5: the macOS configuration (CORDON_PRETEND_MACOS: no libseccomp, no bwrap backend, the
# POSIX process primitive), unoptimized to build fast, only what its suites need; with clang,
# the compiler a Mac builds with (and a quarter quicker than GCC at -O0).
build_macos_tree() {
  CC=${SAN_CC:-clang-16} CXX=${SAN_CXX:-clang++-16} \
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
step "the main tree (make build)"
run_step "main build" make --no-print-directory build BUILD="$BUILD" JOBS="$JOBS"
if [ ${#failed[@]} -gt 0 ]; then echo "FAILED: the main tree did not build"; exit 1; fi

builds=()
[ -z "${CORDON_SKIP_SANITIZER:-}" ] && builds+=(sanitizer)
[ -z "${CORDON_SKIP_MACOS_CHECK:-}" ] && builds+=(macos)
build_in_background "${builds[@]}" &
background=$!
# LL-1: the real container's base image (debootstrap, once; cached), made while the tests run.
(renice -n 10 -p "$BASHPID" >/dev/null 2>&1 || true
 t0=$SECONDS; ./scripts/container_image.sh >"$logs/container_image.log" 2>&1
 echo $((SECONDS - t0)) >"$logs/container_image.secs") &
container_image=$!
trap 'kill $background $container_image 2>/dev/null; rm -rf "$logs" "${shared:-}"' EXIT

step "unit tests"
run_step "unit tests" "$BUILD/tests/unit_tests" --gtest_brief=1

step "portable sources (MAC-5: Linux-only calls stay in the layers' linux/ folders and the host facts)"
run_step "portable sources" ./scripts/check_portable.sh

step "the POSIX process primitive (MAC-5: the one a macOS build links), run here"
run_step "posix process primitive" "$BUILD/tests/posix_process_tests" --gtest_brief=1

step "layers: the pure archive calls nothing of the host, no layer includes a higher one, every source is in one layer"
run_step "pure archive" ./scripts/check_pure.sh "$BUILD/libcordon_pure.a"
run_step "layer includes" env BUILD="$BUILD" ./scripts/check_layers.sh
run_step "layer claims" ./scripts/check_layer_claims.sh

step "requirements: docs/requirements.md is current and every requirement id has a test"
run_step "requirements" ./scripts/requirements.py --check

step "integration tests as $(id -un): the binary's, then the library's (side by side, scripts/run_gtests.sh)"
run_step "integration tests ($(id -un))" ./scripts/run_gtests.sh "$BUILD/tests/integration_tests"
run_step "library tests ($(id -un))" ./scripts/run_gtests.sh "$BUILD/tests/library_tests"

if [ "$(id -u)" -eq 0 ]; then
  user=cordon-test
  if ! id "$user" >/dev/null 2>&1; then
    useradd --system --no-create-home --shell /bin/sh "$user"
  fi
  # The clone may live where that user cannot read (/root): run copies from a shared folder.
  shared=$(mktemp -d /tmp/cordon-test-bin.XXXXXX)
  cp "$BUILD/cordon" "$BUILD/tests/integration_tests" "$BUILD/tests/library_tests" \
    "$BUILD/tests/no_userns" "$shared/"
  chmod 755 "$shared" "$shared"/*
  as_user=(runuser -u "$user" -- env -i PATH=/usr/local/bin:/usr/bin:/bin
    CORDON_MUST_WORK="${CORDON_MUST_WORK:-}" CORDON_TEST_BINARY="$shared/cordon"
    CORDON_TEST_NO_USERNS="$shared/no_userns")
  step "integration tests as the unprivileged user $user"
  run_step "integration tests ($user)" ./scripts/run_gtests.sh "${as_user[@]}" "$shared/integration_tests"
  run_step "library tests ($user)" ./scripts/run_gtests.sh "${as_user[@]}" "$shared/library_tests"
fi

# LL-1: the Landlock backend's suite again, the whole test binary under a stand-in for a default
# Docker container (tests/standin/no_userns: new namespaces refused by a seccomp filter), with
# `[sandbox] backend = "auto"`: reached by the fallback, on every run.
step "the Landlock fallback: its suite where namespaces are refused (a stand-in for a container)"
fallback=(env GTEST_FILTER='LandlockBackend.*')
run_step "landlock fallback ($(id -un))" "${fallback[@]}" ./scripts/run_gtests.sh \
  "$BUILD/tests/no_userns" env CORDON_TEST_LANDLOCK_SETTING=auto "$BUILD/tests/integration_tests"
if [ -n "${shared:-}" ]; then
  run_step "landlock fallback ($user)" "${fallback[@]}" ./scripts/run_gtests.sh "${as_user[@]}" \
    "$shared/no_userns" env CORDON_TEST_LANDLOCK_SETTING=auto "$shared/integration_tests"
fi

# LL-1: the same suite in a real Docker container (default seccomp and AppArmor profiles), as
# root and as a user; skipped, saying why, where no container can run (no Docker, no image).
step "the Landlock backend in a real Docker container (scripts/container_suite.sh)"
wait "$container_image" 2>/dev/null
cat "$logs/container_image.log"
phases+=("$(printf '%5ss  %s' "$(cat "$logs/container_image.secs" 2>/dev/null || echo 0)" "container image (in the background)")")
run_step "landlock in a container" env BUILD="$BUILD" ./scripts/container_suite.sh

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
  step "AddressSanitizer and UndefinedBehaviorSanitizer: unit and library tests, the integration tests against a sanitized cordon; the fuzz targets beside them"
  if wait_for sanitizer; then
    # The fuzz targets run beside the sanitized tests, which mostly wait on sandboxes.
    fuzz_t0=$SECONDS
    (renice -n 10 -p "$BASHPID" >/dev/null 2>&1 || true
     FUZZ_BUILD="$SAN_BUILD" FUZZ_NO_BUILD=1 ./scripts/fuzz.sh >"$logs/fuzz.out" 2>&1
     echo $? >"$logs/fuzz.rc") &
    fuzz=$!
    san=(env CORDON_TEST_BINARY="$PWD/$SAN_BUILD/cordon")
    run_step "unit tests (asan+ubsan)" "$SAN_BUILD/tests/unit_tests" --gtest_brief=1
    run_step "library tests (asan+ubsan)" ./scripts/run_gtests.sh "${san[@]}" "$SAN_BUILD/tests/library_tests"
    run_step "integration tests (asan+ubsan cordon)" ./scripts/run_gtests.sh "${san[@]}" "$BUILD/tests/integration_tests"
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
if [ -n "${fuzz:-}" ]; then
  step "fuzz targets (a fixed number of inputs each, from the sanitizer tree)"
  wait "$fuzz"
  cat "$logs/fuzz.out"
  phases+=("$(printf '%5ss  %s' $((SECONDS - fuzz_t0)) "fuzz (beside the sanitized tests)")")
  if [ "$(cat "$logs/fuzz.rc")" = 0 ]; then echo "==> fuzz: passed"; else echo "==> fuzz: FAILED"; failed+=(fuzz); fi
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
