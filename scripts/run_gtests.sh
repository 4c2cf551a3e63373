#!/usr/bin/env bash
# run_gtests.sh COMMAND... : runs a GoogleTest binary's tests in parallel (issue 29), the way
# `ctest -j` would, from a plain command line, so that it works through `runuser … env -i …`
# as another user and with a copy of the binary. COMMAND is the whole command whose last word
# is the test binary; gtest's flags are appended to it.
#
# The tests are split in two: those matching a pattern of tests/serial.txt (they count the
# machine's processes or time themselves, so another test beside them would make them fail
# or pass for the wrong reason) run alone, after the others; the others run in groups
# side by side (TEST_JOBS, default: twice the number of cores, since these tests mostly wait on
# sandboxes and processes: measured 73 s against 101 s for the integration tests with four groups
# on two cores), each group one process of the binary with a --gtest_filter of its tests, dealt
# out in turn. GTEST_FILTER narrows the whole set.
# Exits non-zero when any test failed or a group crashed; a failing group's output is printed.
set -uo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
JOBS=${TEST_JOBS:-$(($(nproc) * 2))}
SERIAL_FILE=${SERIAL_FILE:-$here/tests/serial.txt}
[ $# -ge 1 ] || { echo "usage: run_gtests.sh COMMAND... (the test binary last)" >&2; exit 2; }
cmd=("$@")

# The serial patterns: one gtest pattern (Suite.Test, * and ? as in --gtest_filter) a line,
# then its reason after a '#'.
serial=()
if [ -f "$SERIAL_FILE" ]; then
  while read -r pattern _; do
    [ -n "$pattern" ] && [ "${pattern:0:1}" != "#" ] && serial+=("$pattern")
  done <"$SERIAL_FILE"
fi
is_serial() {
  local p
  for p in "${serial[@]}"; do
    # shellcheck disable=SC2053
    [[ $1 == $p ]] && return 0
  done
  return 1
}

# The binary's tests, Suite.Test each (a parameterized name keeps its /N; the "# GetParam()"
# comments are dropped).
list=$("${cmd[@]}" --gtest_list_tests ${GTEST_FILTER:+--gtest_filter="$GTEST_FILTER"}) || {
  echo "run_gtests.sh: could not list the tests of ${cmd[*]: -1}" >&2
  exit 1
}
parallel=() alone=()
suite=
while IFS= read -r line; do
  case $line in
    "Running main()"*|"") ;;
    " "*) name=${line#"${line%%[! ]*}"}; name=${name%%[ #]*}
          if is_serial "$suite$name"; then alone+=("$suite$name"); else parallel+=("$suite$name"); fi ;;
    *) suite=${line%%[ #]*} ;;
  esac
done <<<"$list"

logs=$(mktemp -d /tmp/run-gtests.XXXXXX)
trap 'rm -rf "$logs"' EXIT
groups=$JOBS
[ ${#parallel[@]} -lt "$groups" ] && groups=${#parallel[@]}
filters=()
for ((g = 0; g < groups; g++)); do filters+=(""); done
for i in "${!parallel[@]}"; do
  g=$((i % groups))
  filters[g]+="${filters[g]:+:}${parallel[i]}"
done
pids=()
for ((g = 0; g < groups; g++)); do
  "${cmd[@]}" --gtest_brief=1 --gtest_filter="${filters[g]}" >"$logs/$g.log" 2>&1 &
  pids+=($!)
done
status=0
for ((g = 0; g < groups; g++)); do
  if ! wait "${pids[g]}"; then status=1; fi
  # Brief output: the failures and the summary lines only.
  grep -v '^Running main()' "$logs/$g.log"
done
echo "run_gtests.sh: ${#parallel[@]} tests in $groups groups side by side, ${#alone[@]} alone"
if [ ${#alone[@]} -gt 0 ]; then
  filter=$(IFS=:; echo "${alone[*]}")
  "${cmd[@]}" --gtest_brief=1 --gtest_filter="$filter" || status=1
fi
exit $status
