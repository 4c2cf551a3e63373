#!/usr/bin/env bash
# `make bench`: whole-process comparisons side by side, then the pure layers.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
RUNS=${RUNS:-200}
"$BUILD/bench/bench_compare" "$(realpath "$BUILD/cordon")" --runs "$RUNS" ${ONLY:+--only "$ONLY"}
echo
"$BUILD/bench/bench_planner" --benchmark_min_time=0.2
