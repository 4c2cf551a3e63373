#!/usr/bin/env bash
# Issue 31 (LL-1): the base image for testing cordon inside a real Docker container, built
# without any registry: debootstrap a minimal Debian (variant minbase) into a folder and
# `docker import` it. Prints the image's name on stdout (nothing when skipped).
#   scripts/container_image.sh            # build when missing, else just print the name
# Idempotent: the image is named cordon-container:<key>, the key a hash of this recipe (suite,
# variant, packages, mirror, architecture and the scripts' own text), and the root file system's
# tarball is kept under ${XDG_CACHE_HOME:-$HOME/.cache}/cordon-container/<key>/ so that a new
# daemon imports it again without a new debootstrap. The key says what was asked for, not what
# the mirror answered: two builds a month apart can differ in package versions.
# Needs root (debootstrap, chroot) and Docker; skips otherwise (fails with
# CORDON_CONTAINER_MUST_WORK=1).
# The image holds: bubblewrap and git (what cordon runs with), curl (the proxy tests), python3
# (its ctypes runs the Landlock probe, /usr/local/bin/landlock_probe), and a user `user` (uid
# 1000) beside root.
# cordon itself is dynamically linked to libc only, so bookworm's libc runs it.
#   CORDON_CONTAINER_SUITE (bookworm), CORDON_CONTAINER_MIRROR (http://deb.debian.org/debian)
set -euo pipefail
cd "$(dirname "$0")/.."
ct_name="container image"
. scripts/container_common.sh
trap ct_stop_dockerd EXIT

suite=${CORDON_CONTAINER_SUITE:-bookworm}
mirror=${CORDON_CONTAINER_MIRROR:-http://deb.debian.org/debian}
variant=minbase
include=bubblewrap,git,python3,passwd,ca-certificates,curl
arch=$(dpkg --print-architecture 2>/dev/null || uname -m)

landlock_probe='#!/usr/bin/python3
# landlock_create_ruleset(NULL, 0, LANDLOCK_CREATE_RULESET_VERSION): the ABI version, or why not.
# 444 on every architecture (the syscall table is shared since Linux 5.13).
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
r = libc.syscall(ctypes.c_long(444), None, ctypes.c_size_t(0), ctypes.c_uint32(1))
if r < 0:
    e = ctypes.get_errno()
    print("landlock: unavailable: errno %d (%s)" % (e, os.strerror(e)))
    sys.exit(1)
print("landlock: ABI %d" % r)
'

key=$( { printf '%s\n' "$suite" "$variant" "$include" "$mirror" "$arch" "$landlock_probe"
         cat scripts/container_image.sh; } | sha256sum | cut -c1-16)
image=cordon-container:$key
dir=$cache/$key
tarball=$dir/rootfs.tar

ct_need_docker
if "$docker" image inspect "$image" >/dev/null 2>&1; then
  echo "$image"
  exit 0
fi
[ "$(id -u)" = 0 ] || ct_skip "building the image needs root (debootstrap, chroot)"
command -v debootstrap >/dev/null 2>&1 ||
  ct_skip "no debootstrap (scripts/deps.sh test installs it)"

mkdir -p "$cache"
exec 9>"$cache/lock"
flock 9
if [ ! -s "$tarball" ]; then
  # Older keys' tarballs are this recipe's past: dropped.
  find "$cache" -mindepth 1 -maxdepth 1 -type d ! -name "$key" -exec rm -rf {} +
  mkdir -p "$dir"
  root=$dir/rootfs
  rm -rf "$root" "$tarball.tmp"
  echo "$ct_name: debootstrap $suite ($variant, with $include) from $mirror (log: $dir/debootstrap.log)" >&2
  if ! nice -n 19 debootstrap --variant="$variant" --include="$include" "$suite" "$root" "$mirror" \
      >"$dir/debootstrap.log" 2>&1; then
    tail -n 20 "$dir/debootstrap.log" >&2
    echo "$ct_name: debootstrap failed (log: $dir/debootstrap.log)" >&2
    exit 1
  fi
  chroot "$root" useradd -m -u 1000 -s /bin/bash user
  printf '%s' "$landlock_probe" >"$root/usr/local/bin/landlock_probe"
  chmod 755 "$root/usr/local/bin/landlock_probe"
  rm -rf "$root"/var/cache/apt/archives/*.deb "$root"/var/lib/apt/lists/*
  nice -n 19 tar --numeric-owner -C "$root" -cf "$tarball.tmp" .
  mv "$tarball.tmp" "$tarball"
  rm -rf "$root"
fi
echo "$ct_name: importing $tarball as $image" >&2
nice -n 19 "$docker" import --change 'CMD ["/bin/bash"]' "$tarball" "$image" >/dev/null
echo "$image"
