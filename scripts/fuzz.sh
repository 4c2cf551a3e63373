#!/usr/bin/env bash
# Builds the libFuzzer targets with clang (in build-fuzz, or FUZZ_BUILD) and runs every fuzz_*
# target built there for a bounded time: FUZZ_SECONDS each (default 60), starting from the seeds
# in tests/fuzz/corpus/<target>/ and the dictionary tests/fuzz/<target>.dict when present.
# Inputs found along the way stay in $FUZZ_BUILD/corpus/<target>/ (never committed). Exits
# non-zero when a target crashes, hangs or runs out of memory; the reproducer is in
# $FUZZ_BUILD/artifacts/<target>/ and can be replayed with `$FUZZ_BUILD/tests/fuzz/<target> FILE`.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${FUZZ_BUILD:-build-fuzz}
PER_TARGET=${FUZZ_SECONDS:-60}
JOBS=${JOBS:-$(nproc)}

if ! command -v clang++ >/dev/null 2>&1; then
  echo "fuzz: clang++ is not installed; the fuzz targets need clang's libFuzzer" >&2
  exit 1
fi
CC=clang CXX=clang++ cmake -S . -B "$BUILD" -G Ninja -DCORDON_FUZZ=ON -DCORDON_TESTS=OFF \
  -DCORDON_BENCH=OFF -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$BUILD" -j "$JOBS" --target fuzz_targets

mapfile -t targets < <(find "$BUILD/tests/fuzz" -maxdepth 1 -type f -name 'fuzz_*' -perm -u+x |
  sort)
if [ ${#targets[@]} -eq 0 ]; then
  echo "fuzz: no fuzz_* target was built in $BUILD/tests/fuzz" >&2
  exit 1
fi

failed=()
for bin in "${targets[@]}"; do
  name=$(basename "$bin")
  work="$BUILD/corpus/$name"
  artifacts="$BUILD/artifacts/$name/"
  log="$BUILD/$name.log"
  mkdir -p "$work" "$artifacts"
  args=(-max_total_time="$PER_TARGET" -timeout=10 -rss_limit_mb=2048 -max_len=16384
        -print_final_stats=1 -artifact_prefix="$artifacts")
  [ -f "tests/fuzz/$name.dict" ] && args+=(-dict="tests/fuzz/$name.dict")
  dirs=("$work")
  [ -d "tests/fuzz/corpus/$name" ] && dirs+=("tests/fuzz/corpus/$name")
  echo "==> $name for ${PER_TARGET}s"
  if "$bin" "${args[@]}" "${dirs[@]}" >"$log" 2>&1; then
    grep -E '^stat::number_of_executed_units' "$log" | sed "s/^/    /" || true
    echo "==> $name: no crash"
  else
    tail -n 40 "$log"
    echo "==> $name: FAILED (log: $log, reproducer in $artifacts)"
    failed+=("$name")
  fi
done

if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzz: failed: ${failed[*]}"
  exit 1
fi
echo "fuzz: all ${#targets[@]} targets ran without a crash"
