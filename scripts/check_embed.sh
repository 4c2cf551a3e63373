#!/usr/bin/env bash
# Issue 15 item 7: an embedder builds against the installed libcordon (make install into a
# staging folder) with pkg-config and with CMake's find_package, and runs a command in the
# sandbox through the public API. Needs a full build ($BUILD, as `make build` leaves it).
set -euo pipefail
cd "$(dirname "$0")/.."
src=$PWD
BUILD=${BUILD:-build}
fail() { echo "check_embed: $*" >&2; exit 1; }

# Not under /tmp: the sandbox replaces it, which would hide the project there.
tmp=$(mktemp -d /var/tmp/cordon-embed.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
chmod 755 "$tmp"
DESTDIR="$tmp/stage" cmake --install "$BUILD" --prefix /usr/local >/dev/null
prefix="$tmp/stage/usr/local"
for f in lib/libcordon.a lib/pkgconfig/cordon.pc lib/cmake/cordon/cordonConfig.cmake \
         lib/cmake/cordon/cordonConfigVersion.cmake include/cordon/cordon.h \
         include/cordon/approval.h include/cordon/result.h include/cordon/exec_result.h \
         include/cordon/job.h; do
  [ -f "$prefix/$f" ] || fail "make install did not install $f"
done
# Only the public headers are installed: the faces' own switches stay inside.
[ ! -e "$prefix/include/cordon/face_options.h" ] || fail "an internal header was installed"

# pkg-config: the .pc file finds its prefix from where it lies.
flags=$(PKG_CONFIG_PATH="$prefix/lib/pkgconfig" pkg-config --cflags --libs cordon) ||
  fail "pkg-config cannot read cordon.pc"
# shellcheck disable=SC2086
c++ -std=c++20 -O1 "$src/tests/embed/embedder.cc" -o "$tmp/embedder-pc" $flags ||
  fail "the embedder does not build with pkg-config --cflags --libs cordon"

# CMake: find_package(cordon) and the imported target cordon::cordon.
cmake -S "$src/tests/embed" -B "$tmp/cmake" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_PREFIX_PATH="$prefix" >"$tmp/cmake.log" 2>&1 || { cat "$tmp/cmake.log"; fail "find_package(cordon) failed"; }
cmake --build "$tmp/cmake" >"$tmp/build.log" 2>&1 || { cat "$tmp/build.log"; fail "the embedder does not build with find_package(cordon)"; }

mkdir -p "$tmp/home"
for bin in "$tmp/embedder-pc" "$tmp/cmake/embedder"; do
  project="$tmp/project-$(basename "$(dirname "$bin")")"
  mkdir -p "$project"
  rc=0
  out=$(env -i HOME="$tmp/home" PATH=/usr/local/bin:/usr/bin:/bin "$bin" "$project" 2>"$tmp/err") || rc=$?
  if [ $rc -eq 3 ] && [ -z "${CORDON_MUST_WORK:-}" ]; then
    echo "check_embed: skipped running the sandbox (unavailable here): $(cat "$tmp/err")"
    continue
  fi
  [ $rc -eq 0 ] || fail "$bin exited $rc: $(cat "$tmp/err")"
  expected=$'classify ls: read-only\nempty request: invalid\nhello from the sandbox\nexit 0'
  [ "$out" = "$expected" ] || fail "$bin printed '$out', expected '$expected'"
  [ "$(cat "$project/made.txt")" = made ] || fail "$bin: the command did not write the project"
done
echo "check_embed: ok (pkg-config and find_package builds ran a sandboxed command)"
