#!/usr/bin/env bash
# Installs the Debian packages cordon needs, only the missing ones, and nothing at all when
# everything is there. `deps.sh build` (make build): what building and running need;
# `deps.sh demo` (make demo): that and the demo's tools; `deps.sh test` (make test, the
# default): everything the tests use, real tools and the package checks included.
set -euo pipefail
what=${1:-test}

packages=(
  # run time
  bubblewrap git
  # build (the unit tests and benchmarks build with everything else)
  cmake ninja-build g++ pkg-config libseccomp-dev libtomlplusplus-dev nlohmann-json3-dev
  libcli11-dev libfmt-dev libre2-dev libgtest-dev libgmock-dev libbenchmark-dev
  # the allowlist proxy (NET-7): standalone Asio, header-only
  libasio-dev
  # credentials through the proxy (AUD-3): TLS for the bound hosts, cordon's CA and leaf certs;
  # OpenSSL's headers, and its libssl3, which cordon loads when first needed (PERF-1)
  libssl-dev
)
case $what in
  build) ;;
  demo) packages+=(curl python3 make) ;;
  test) packages+=(
  # tests: clang 16 and its runtimes for the sanitizer tree and libFuzzer (clang 14 has no
  # C++20 coroutines with this libstdc++), the tools the tests drive
  clang-16 libclang-rt-16-dev python3 util-linux procps iproute2
  # the allowlist proxy tests (NET-7): curl as a real client, and the tools tested one by one
  # through the proxy (NetTools.*): pip, Java, cargo, go (git and node are listed already)
  curl python3-pip default-jdk-headless cargo golang-go
  # real tools in the sandbox (RealTools.*, PKG-1): a CMake project built with make and ccache
  make ccache
  # the package and its checks (DIST-1, DIST-2): dpkg-shlibdeps, the completions' shells
  dpkg-dev zsh fish
  # a real Docker container (issue 31, LL-1: scripts/container_image.sh, container_check.sh):
  # Docker's own daemon, whose default seccomp profile refuses user namespaces, and debootstrap
  # for its base image (no registry). Where no systemd runs, the scripts start dockerd themselves.
  docker.io debootstrap
  # the library the unpacked sshd of the git-over-ssh tests needs (NET-12: fetch_sshd below)
  libwrap0
  ) ;;
  *) echo "deps.sh: unknown set '$what' (build, demo or test)" >&2; exit 2 ;;
esac

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
# Node.js and npm (the MCP end-to-end test uses the official TypeScript SDK client): any
# install that gives both commands will do (nodesource's nodejs carries npm itself).
if [ "$what" = test ] && { ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; }; then
  missing+=(nodejs npm)
fi
# git over ssh through the allowlist (NET-12, GitSsh.*): a real sshd on loopback, fetched and
# unpacked into a cache folder, never installed (installing openssh-server would start a
# daemon on port 22). The tests run it themselves, unprivileged (as root: as cordon-test, so
# no privilege-separation user is needed).
fetch_sshd() {
  local dir=/var/cache/cordon-test/openssh-server
  [ -x "$dir/usr/sbin/sshd" ] && return 0
  local sudo=()
  [ "$(id -u)" -eq 0 ] || sudo=(sudo)
  local tmp
  tmp=$(mktemp -d)
  echo "cordon: fetching openssh-server (unpacked into $dir, not installed) for the ssh tests"
  (cd "$tmp" && chmod 755 . && "${sudo[@]}" apt-get download -qq openssh-server openssh-sftp-server) ||
    { "${sudo[@]}" apt-get update -qq &&
      (cd "$tmp" && "${sudo[@]}" apt-get download -qq openssh-server openssh-sftp-server); }
  "${sudo[@]}" mkdir -p "$dir.new"
  for deb in "$tmp"/*.deb; do "${sudo[@]}" dpkg -x "$deb" "$dir.new"; done
  "${sudo[@]}" rm -rf "$dir" && "${sudo[@]}" mv "$dir.new" "$dir"
  "${sudo[@]}" rm -rf "$tmp"
}
[ "$what" = test ] && fetch_sshd

[ ${#missing[@]} -eq 0 ] && exit 0

echo "cordon: installing missing packages: ${missing[*]}"
if [ "$(id -u)" -eq 0 ]; then
  sudo=()
elif command -v sudo >/dev/null 2>&1; then
  sudo=(sudo)
else
  echo "cordon: run as root, or install them yourself: apt-get install ${missing[*]}" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" apt-get update -qq
"${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
