#!/usr/bin/env bash
# DIST-1, DIST-2: builds the .deb, checks its contents and dependencies against
# `make install PREFIX=/usr`, unpacks it into a throw-away folder and runs the unpacked cordon
# on a throw-away project (a command in a real sandbox). About a minute on a built tree.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
JOBS=${JOBS:-2}
fail() { echo "check_package: $*" >&2; exit 1; }

cmake --build "$BUILD" -j "$JOBS" --target cordon cordon_docs
(cd "$BUILD" && cpack -G DEB >/dev/null)
version=$(sed -n 's/.*kCordonVersion = "\(.*\)".*/\1/p' src/core/version.h)
arch=$(dpkg --print-architecture)
deb="$BUILD/cordon_${version}_${arch}.deb"
[ -f "$deb" ] || fail "no $deb"
echo "package: $deb ($(du -h "$deb" | cut -f1))"

# DIST-2: what it depends on.
depends=$(dpkg-deb -f "$deb" Depends)
echo "Depends: $depends"
# libssl3: loaded when first needed (PERF-1), so named by hand; libssl3t64 on newer Ubuntu.
for d in bubblewrap git libssl3; do
  grep -Eq "(^|, )$d( |,|$)" <<<"$depends" || fail "the package does not depend on $d"
done
[ "$(dpkg-deb -f "$deb" Package)" = cordon ] || fail "the package is not named cordon"
[ "$(dpkg-deb -f "$deb" Version)" = "$version" ] || fail "the package's version is not $version"

# Not under /tmp: the sandbox replaces it, which would hide a HOME there for the wrong reason.
tmp=$(mktemp -d /var/tmp/cordon-package.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
chmod 755 "$tmp"

# DIST-2: the same files as `make install PREFIX=/usr` (DIST-1).
dpkg-deb -c "$deb" | awk '{print $6}' | grep -v '/$' | sed 's|^\./||' | sort >"$tmp/deb.txt"
DESTDIR="$tmp/install" cmake --install "$BUILD" --prefix /usr --strip >/dev/null
(cd "$tmp/install" && find . -type f -o -type l) | sed 's|^\./||' | sort >"$tmp/install.txt"
diff -u "$tmp/install.txt" "$tmp/deb.txt" || fail "the package and make install differ"
for f in usr/bin/cordon usr/share/man/man1/cordon.1.gz \
         usr/share/bash-completion/completions/cordon usr/share/zsh/vendor-completions/_cordon \
         usr/share/fish/vendor_completions.d/cordon.fish usr/share/doc/cordon/README.md; do
  grep -qx "$f" "$tmp/deb.txt" || fail "the package lacks $f"
done
grep -q '^usr/share/doc/cordon/docs/.*\.md$' "$tmp/deb.txt" || fail "the package lacks the docs"

# DIST-1: a local install goes under /usr/local, zsh's completion into site-functions.
DESTDIR="$tmp/local" cmake --install "$BUILD" --strip >/dev/null
[ -x "$tmp/local/usr/local/bin/cordon" ] || fail "make install did not install /usr/local/bin/cordon"
[ -f "$tmp/local/usr/local/share/zsh/site-functions/_cordon" ] ||
  fail "make install did not install the zsh completion into site-functions"

# Unpack and look inside.
dpkg-deb -x "$deb" "$tmp/root"
bin="$tmp/root/usr/bin/cordon"
# Stripped: no debug information in the installed binary, nor in the library for embedders.
if readelf -S "$bin" | grep -q '\.debug_info'; then fail "the packaged cordon is not stripped"; fi
lib=$(find "$tmp/root/usr/lib" -name libcordon.a | head -1)
[ -n "$lib" ] || fail "the package lacks libcordon.a"
if readelf -S "$lib" 2>/dev/null | grep -q '\.debug_info'; then
  fail "the packaged libcordon.a keeps its debug information"
fi
echo "library: $(du -h "$lib" | cut -f1) (build: $(du -h "$BUILD/libcordon.a" | cut -f1))"
echo "binary: $(du -h "$bin" | cut -f1) (build/cordon: $(du -h "$BUILD/cordon" | cut -f1))"
# The man page renders, and says what --help says.
man_text=$(MANWIDTH=200 man -l "$tmp/root/usr/share/man/man1/cordon.1.gz" 2>/dev/null | col -b)
grep -q "cordon run" <<<"$man_text" || fail "the man page has no 'cordon run'"
grep -q "setup apparmor" <<<"$man_text" || fail "the man page has no 'cordon setup apparmor'"
# The completions parse in their shells (those that are installed).
bash -n "$tmp/root/usr/share/bash-completion/completions/cordon" || fail "bash completion"
if command -v zsh >/dev/null; then
  zsh -n "$tmp/root/usr/share/zsh/vendor-completions/_cordon" || fail "zsh completion"
fi
if command -v fish >/dev/null; then
  fish -n "$tmp/root/usr/share/fish/vendor_completions.d/cordon.fish" || fail "fish completion"
fi

# DIST-2: the unpacked binary runs a command in a sandbox on a throw-away project.
home="$tmp/home" project="$tmp/project"
mkdir -p "$home" "$project"
git -C "$project" init -q
echo "secret" >"$home/.netrc"
env -i HOME="$home" PATH=/usr/bin:/bin "$bin" --version
out=$(cd "$project" && env -i HOME="$home" PATH=/usr/bin:/bin \
  "$bin" run -- sh -c 'echo made >made.txt; cat made.txt; cat ~/.netrc; touch ~/outside 2>/dev/null || echo outside-refused')
expected=$'made\noutside-refused'
[ "$out" = "$expected" ] || fail "the packaged cordon ran: '$out', expected '$expected'"
[ "$(cat "$project/made.txt")" = made ] || fail "the command's file is not in the project"
[ ! -e "$home/outside" ] || fail "the command wrote outside the project"
echo "check_package: passed"
