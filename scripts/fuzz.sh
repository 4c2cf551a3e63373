#!/usr/bin/env bash
# Builds the libFuzzer targets in the sanitizer tree (scripts/build_sanitizer_tree.sh: build-san,
# or FUZZ_BUILD; FUZZ_NO_BUILD=1 when it is built already, as make test's is) and runs every fuzz_* target
# built there, side by side: a fixed number of inputs each (tests/fuzz/runs.txt, so a slow
# machine fuzzes as much as a fast one), or FUZZ_SECONDS each when set; starting from the seeds
# in tests/fuzz/corpus/<target>/ and the dictionary tests/fuzz/<target>.dict when present.
# Inputs found along the way stay in $FUZZ_BUILD/corpus/<target>/ (never committed). Exits
# non-zero when a target crashes, hangs or runs out of memory; the reproducer is in
# $FUZZ_BUILD/artifacts/<target>/ and can be replayed with `$FUZZ_BUILD/tests/fuzz/<target> FILE`.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${FUZZ_BUILD:-build-san}
SECONDS_EACH=${FUZZ_SECONDS:-}
JOBS=${JOBS:-$(nproc)}

if [ -z "${FUZZ_NO_BUILD:-}" ]; then
  SAN_BUILD=$BUILD JOBS=$JOBS ./scripts/build_sanitizer_tree.sh
fi
# runs_for TARGET: the number of inputs tests/fuzz/runs.txt gives it (default 100000).
runs_for() {
  awk -v t="$1" '$1 == t { print $2; found = 1 } END { if (!found) print 100000 }' tests/fuzz/runs.txt
}

mapfile -t targets < <(find "$BUILD/tests/fuzz" -maxdepth 1 -type f -name 'fuzz_*' -perm -u+x |
  sort)
if [ ${#targets[@]} -eq 0 ]; then
  echo "fuzz: no fuzz_* target was built in $BUILD/tests/fuzz" >&2
  exit 1
fi

# fuzz_one BIN: runs one target; its output goes to its log.
fuzz_one() {
  local bin=$1 name work artifacts log
  name=$(basename "$bin")
  work="$BUILD/corpus/$name"
  artifacts="$BUILD/artifacts/$name/"
  log="$BUILD/$name.log"
  mkdir -p "$work" "$artifacts"
  local args=(-timeout=10 -rss_limit_mb=2048 -max_len=16384 -print_final_stats=1
              -artifact_prefix="$artifacts")
  if [ -n "$SECONDS_EACH" ]; then args+=(-max_total_time="$SECONDS_EACH"); else args+=(-runs="$(runs_for "$name")"); fi
  [ -f "tests/fuzz/$name.dict" ] && args+=(-dict="tests/fuzz/$name.dict")
  local dirs=("$work")
  [ -d "tests/fuzz/corpus/$name" ] && dirs+=("tests/fuzz/corpus/$name")
  "$bin" "${args[@]}" "${dirs[@]}" >"$log" 2>&1
}

pids=()
for bin in "${targets[@]}"; do
  echo "==> $(basename "$bin"): ${SECONDS_EACH:+${SECONDS_EACH}s}${SECONDS_EACH:-$(runs_for "$(basename "$bin")") inputs}"
  fuzz_one "$bin" &
  pids+=($!)
  # No more targets at once than cores.
  while [ "$(jobs -rp | wc -l)" -ge "$JOBS" ]; do sleep 1; done
done
failed=()
for i in "${!targets[@]}"; do
  name=$(basename "${targets[$i]}")
  log="$BUILD/$name.log"
  if wait "${pids[$i]}"; then
    grep -E '^stat::number_of_executed_units' "$log" | sed "s/^/    $name: /" || true
  else
    tail -n 40 "$log"
    echo "==> $name: FAILED (log: $log, reproducer in $BUILD/artifacts/$name/)"
    failed+=("$name")
  fi
done

if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzz: failed: ${failed[*]}"
  exit 1
fi
echo "fuzz: all ${#targets[@]} targets ran without a crash"
