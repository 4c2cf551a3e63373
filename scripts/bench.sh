#!/usr/bin/env bash
# `make bench`: whole-process comparisons side by side, `cordon serve` under load (PERF-4,
# PERF-6), then the pure layers.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
RUNS=${RUNS:-200}
"$BUILD/bench/bench_compare" "$(realpath "$BUILD/cordon")" --runs "$RUNS" ${ONLY:+--only "$ONLY"}
# PERF-1 for both users (issue 29): as root the default limits put each command in a cgroup; a
# plain user has none. The unprivileged user is the tests' (cordon-test).
# LL-1: the Landlock backend's line for both users too.
if [ "$(id -u)" = 0 ] && [ -z "${ONLY:-}" -o "${ONLY:-}" = run -o "${ONLY:-}" = landlock ]; then
  if id cordon-test >/dev/null 2>&1; then
    d=$(mktemp -d /tmp/cordon-bench-bin.XXXXXX)
    cp "$BUILD/cordon" "$BUILD/bench/bench_compare" "$BUILD/bench/floor_wrapper" "$d/"
    chmod 755 "$d" "$d"/*
    for part in ${ONLY:-run landlock}; do
      echo
      echo "The same as the unprivileged user cordon-test:"
      (cd / && runuser -u cordon-test -- env -i PATH=/usr/local/bin:/usr/bin:/bin \
        "$d/bench_compare" "$d/cordon" --runs "$RUNS" --only "$part")
    done
    rm -rf "$d"
  else
    echo "(no user cordon-test: the plain-user line is left out; useradd --system cordon-test)"
  fi
fi
# ONLY=run (or another part of bench_compare: landlock, probe, mounts, repo, jobs): that part alone, for a
# quick loop.
[ -n "${ONLY:-}" ] && exit 0
echo
"$BUILD/bench/bench_serve" "$(realpath "$BUILD/cordon")" --rounds "${SERVE_ROUNDS:-5}" \
  --execs "${SERVE_EXECS:-100}" --rss-execs "${RSS_EXECS:-10000}"
echo
# PERF-8: a real project's test suite (hundreds of tests, loopback servers) inside and outside.
bench/perf8_test_suite.sh "$(realpath "$BUILD/cordon")" "${PERF8_ROUNDS:-5}"
echo
# PERF-7: the allowlist proxy: npm ci through it against --network, 1 GiB through a tunnel, 200
# tunnels at once.
bench/perf7_proxy.sh "$(realpath "$BUILD/cordon")" "${PERF7_ROUNDS:-3}"
echo
"$BUILD/bench/bench_planner" --benchmark_min_time=0.2
echo
# CMD-1..CMD-6 measured on tests/data/command_corpus.tsv: false allows (must be 0) and the
# false-ask rate.
"$BUILD/tests/unit_tests" --gtest_filter='CommandCorpus.*' | grep '^command corpus:'
