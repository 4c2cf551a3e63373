#!/usr/bin/env bash
# Issue 31 (LL-1): run a command inside a real Docker container under Docker's default seccomp
# profile (and its AppArmor profile where the host kernel has AppArmor), once as root and once
# as the image's user `user` (uid 1000), with a given cordon binary copied in as
# /usr/local/bin/cordon. Prints each run's output and exit status; exits 1 when either failed.
#   scripts/container_check.sh build/cordon cordon probe
#   scripts/container_check.sh build/cordon sh -c 'unshare -Ur true; bwrap --ro-bind / / true; landlock_probe'
# The image comes from scripts/container_image.sh (built once, cached). The container has no
# network (loopback only) unless CORDON_CONTAINER_NETWORK names one (e.g. bridge). Nothing
# weakens the defaults: no --privileged, no --security-opt, no added capability.
# Skips (exit 0, SKIPPED on stderr) when Docker is missing or its daemon cannot start; fails
# instead with CORDON_CONTAINER_MUST_WORK=1.
set -euo pipefail
cd "$(dirname "$0")/.."
ct_name="container check"
. scripts/container_common.sh
cid=
# shellcheck disable=SC2317 # run by the EXIT trap
cleanup() {
  [ -z "$cid" ] || "$docker" rm -f "$cid" >/dev/null 2>&1 || true
  ct_stop_dockerd
}
trap cleanup EXIT

# --copy FILE (repeatable, first): another program copied in beside cordon, in /usr/local/bin.
copies=()
while [ "${1:-}" = --copy ]; do
  [ -x "${2:-}" ] || { echo "$ct_name: --copy ${2:-}: not an executable file" >&2; exit 2; }
  copies+=("$2")
  shift 2
done
if [ $# -lt 2 ]; then
  echo "usage: scripts/container_check.sh [--copy FILE]... CORDON_BINARY COMMAND [ARG...]" >&2
  exit 2
fi
binary=$1
shift
[ -x "$binary" ] || { echo "$ct_name: $binary is not an executable file" >&2; exit 2; }

ct_need_docker
image=$(scripts/container_image.sh)
[ -n "$image" ] || exit 0  # skipped; container_image.sh said why

security=$("$docker" info --format '{{join .SecurityOptions " "}}')
case $security in
  *name=seccomp*) ;;
  *) ct_skip "the Docker daemon has no seccomp (security options: $security)" ;;
esac
case $security in
  *name=apparmor*) apparmor="apparmor (docker-default)" ;;
  *) apparmor="no apparmor: this host's kernel has none (/sys/kernel/security/apparmor is missing)" ;;
esac
echo "$ct_name: $image, $security; $apparmor" >&2

cid=$("$docker" create --network "${CORDON_CONTAINER_NETWORK:-none}" "$image" sleep infinity)
"$docker" cp "$binary" "$cid:/usr/local/bin/cordon"
for f in "${copies[@]}"; do "$docker" cp "$f" "$cid:/usr/local/bin/$(basename "$f")"; done
"$docker" start "$cid" >/dev/null
"$docker" exec --user root "$cid" chmod -R a+rX /usr/local/bin

failed=0
for who in root user; do
  home=/root
  [ "$who" = root ] || home=/home/$who
  echo "=== as $who: $*"
  set +e
  # One stream, merged inside the container, so that the lines keep their order.
  "$docker" exec --user "$who" --workdir "$home" "$cid" sh -c 'exec "$@" 2>&1' sh "$@"
  rc=$?
  set -e
  echo "=== as $who: exit $rc"
  [ "$rc" = 0 ] || failed=1
done
exit "$failed"
