#!/usr/bin/env bash
# PERF-8: a real project's test suite inside `cordon run` against the same outside, side by
# side. The project is tests/data/npm_project (express, mocha, supertest, pinned by its lock
# file), installed once inside `cordon run --network` from the npm registry; its suite runs
# CORDON_TEST_COUNT x 3 + 1 tests (default 301), each starting an HTTP server on loopback.
# Runs alternate (outside, inside) ROUNDS times; the medians and their ratio are printed.
set -euo pipefail
cordon=${1:?usage: perf8_test_suite.sh CORDON [ROUNDS]}
rounds=${2:-5}
count=${CORDON_TEST_COUNT:-100}
src="$(cd "$(dirname "$0")/.." && pwd)/tests/data/npm_project"
if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
  echo "PERF-8: skipped (node and npm are not installed)"
  exit 0
fi
work=$(mktemp -d /var/tmp/cordon-perf8-XXXXXX)
trap 'chmod -R u+rwx "$work"; rm -rf "$work"' EXIT
export HOME="$work/home"
mkdir -p "$HOME/project"
cp -r "$src/." "$HOME/project/"
cd "$HOME/project"
git init -q -b main . && git add -A && git -c user.name=b -c user.email=b@b commit -qm fixture
if ! "$cordon" run --network -- npm ci --no-audit --no-fund >"$work/install.log" 2>&1; then
  echo "PERF-8: skipped (npm ci inside cordon run --network failed; see below)"
  tail -5 "$work/install.log"
  exit 0
fi
now() { date +%s%N; }
inside=() outside=()
for ((i = 0; i < rounds; i++)); do
  t0=$(now)
  CORDON_TEST_COUNT=$count node node_modules/.bin/mocha --reporter dot >"$work/out.log" 2>&1
  t1=$(now)
  CORDON_TEST_COUNT=$count "$cordon" run -- node node_modules/.bin/mocha --reporter dot \
    >"$work/in.log" 2>&1
  t2=$(now)
  outside+=($(((t1 - t0) / 1000000)))
  inside+=($(((t2 - t1) / 1000000)))
done
median() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
mo=$(median "${outside[@]}")
mi=$(median "${inside[@]}")
tests_out=$(grep -o '[0-9]* passing' "$work/out.log" || echo "? passing")
tests_in=$(grep -o '[0-9]* passing' "$work/in.log" || echo "? passing")
echo "PERF-8: a mocha suite with HTTP servers on loopback ($tests_out outside, $tests_in inside)"
printf '  %-34s median %6d ms  (%s)\n' "outside" "$mo" "${outside[*]}"
printf '  %-34s median %6d ms  (%s)\n' "inside cordon run" "$mi" "${inside[*]}"
awk -v i="$mi" -v o="$mo" 'BEGIN { printf "  ratio inside/outside: %.3f (PERF-8 asks at most 1.1)\n", i / o }'
