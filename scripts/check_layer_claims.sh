#!/usr/bin/env bash
# Issue 29 review item 1: the configuration fails on a source under src/ that no layer claims
# or two layers claim, and on a header no layer lists (cmake/CordonLayers.cmake,
# cordon_check_claims). Configures a copy of the tree four times, each with one such file,
# and once as it is: each of the four must fail and name the file, the plain copy must pass.
set -uo pipefail
cd "$(dirname "$0")/.."
work=$(mktemp -d /tmp/cordon-claims.XXXXXX)
trap 'rm -rf "$work"' EXIT
status=0

# configure NAME: configures the copy $work/NAME; its output in $work/NAME.log.
configure() {
  cmake -S "$work/$1" -B "$work/$1/build" -G Ninja -DCORDON_TESTS=OFF -DCORDON_BENCH=OFF \
    -DCORDON_PCH=OFF >"$work/$1.log" 2>&1
}
# copy NAME: a copy of what configuring reads.
copy() {
  mkdir -p "$work/$1"
  cp -r CMakeLists.txt cmake src include "$work/$1/"
  [ -d docs ] && cp -r docs "$work/$1/"
  return 0
}
# expect_refused NAME WORDS: configuring NAME fails and its message holds WORDS.
expect_refused() {
  if configure "$1"; then
    echo "check_layer_claims: $1: the configuration passed; it must fail ($2)" >&2
    status=1
  elif ! grep -q "$2" "$work/$1.log"; then
    echo "check_layer_claims: $1: the configuration failed without saying '$2':" >&2
    tail -n 20 "$work/$1.log" >&2
    status=1
  fi
}

copy plain
if ! configure plain; then
  echo "check_layer_claims: the tree as it is does not configure:" >&2
  tail -n 30 "$work/plain.log" >&2
  exit 1
fi

copy unclaimed
mkdir -p "$work/unclaimed/src/stray"
echo 'int stray() { return 1; }' >"$work/unclaimed/src/stray/unclaimed.cc"
expect_refused unclaimed "src/stray/unclaimed.cc belongs to no layer"

copy twice
sed -i 's/^cordon_check_claims()$/cordon_claim(extra ${CMAKE_SOURCE_DIR}\/src\/core\/strings.cc)\n&/' \
  "$work/twice/cmake/CordonLayers.cmake"
expect_refused twice "src/core/strings.cc belongs to two layers (core, extra)"

copy subfolder
mkdir -p "$work/subfolder/src/core/extra"
echo 'int stray() { return 1; }' >"$work/subfolder/src/core/extra/stray.cc"
expect_refused subfolder "src/core/extra/stray.cc belongs to no layer"

copy header
mkdir -p "$work/header/src/stray"
echo '#pragma once' >"$work/header/src/stray/stray.h"
expect_refused header "src/stray/stray.h is in no layer's folder"

[ $status -eq 0 ] && echo "check_layer_claims: an unclaimed source (outside the layers' folders or in a layer's subfolder that is not a system's), a source of two layers and a header outside the layers' folders each fail the configuration"
exit $status
