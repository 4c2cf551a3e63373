#!/usr/bin/env bash
# Builds the sanitizer tree (SAN_BUILD, default build-san): clang 16 with AddressSanitizer,
# UndefinedBehaviorSanitizer and libFuzzer's coverage on every source (issue 29). One tree
# gives a sanitized cordon, the unit tests, the tests that call the library in-process
# (library_tests) and the fuzz targets. The pure layers, which the fuzz targets and the unit
# tests run, compile at -O1; the host layers, the CLI and the tests' own code at -O0: with the
# sanitizers, -O1 triples a source's compile time (measured: 20 s against 9 s of CPU for
# plan/aftercare_rules.cc without the precompiled header). make test builds it in the background
# (scripts/test.sh), make asan and make fuzz in the foreground.
# clang 16: clang 14 has no C++20 coroutines with Debian 12's libstdc++, and the allowlist
# proxy's Asio code needs them.
set -euo pipefail
cd "$(dirname "$0")/.."
SAN_BUILD=${SAN_BUILD:-build-san}
JOBS=${JOBS:-$(nproc)}
SAN_CC=${SAN_CC:-clang-16}
SAN_CXX=${SAN_CXX:-clang++-16}
if ! command -v "$SAN_CXX" >/dev/null 2>&1; then
  echo "the sanitizer tree needs $SAN_CXX: apt-get install clang-16 libclang-rt-16-dev (make test installs them)" >&2
  exit 1
fi
CC=$SAN_CC CXX=$SAN_CXX cmake -S . -B "$SAN_BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Debug \
  "-DCMAKE_CXX_FLAGS_DEBUG=-O1 -gline-tables-only" -DCORDON_HOST_CXX_FLAGS=-O0 \
  -DCORDON_TEST_CXX_FLAGS=-O0 \
  -DCORDON_FUZZ=ON -DCORDON_BENCH=OFF >/dev/null
cmake --build "$SAN_BUILD" -j "$JOBS" --target cordon unit_tests library_tests fuzz_targets "$@"
