# shellcheck shell=bash disable=SC2154
# Sourced by scripts/container_image.sh and scripts/container_check.sh (issue 31, LL-1): the
# container runtime they share, and how they skip. Docker only, on purpose: Docker's default
# seccomp profile is what refuses user namespaces (unshare/clone with namespace flags without
# CAP_SYS_ADMIN), the case the Landlock backend is for. Podman's default profile
# (containers-common) lets `unshare -Ur` and bwrap through, so it would not reproduce it.
#
# ct_name must be set by the caller (the prefix of its messages).
cache=${CORDON_CONTAINER_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/cordon-container}
docker=${DOCKER:-docker}
ct_started_dockerd=

# Skips (exit 0, reason on stderr) unless CORDON_CONTAINER_MUST_WORK is set: then fails, as
# scripts/clients_e2e.sh does.
ct_skip() {
  if [ -n "${CORDON_CONTAINER_MUST_WORK:-}" ]; then
    echo "$ct_name: $* (CORDON_CONTAINER_MUST_WORK is set)" >&2
    exit 1
  fi
  echo "$ct_name: SKIPPED: $*" >&2
  exit 0
}

ct_stop_dockerd() {
  [ -n "$ct_started_dockerd" ] || return 0
  local pid=$ct_started_dockerd
  ct_started_dockerd=
  kill -TERM "$pid" 2>/dev/null || return 0
  for _ in $(seq 1 40); do
    kill -0 "$pid" 2>/dev/null || { wait "$pid" 2>/dev/null; return 0; }
    sleep 0.5
  done
  kill -KILL "$pid" 2>/dev/null
  wait "$pid" 2>/dev/null || true
}

# Makes sure a Docker daemon answers. Without one, as root and with dockerd installed (no
# systemd is needed), starts one in the background, logging to $cache/dockerd.log, and stops it
# when the calling script exits (the caller's EXIT trap must call ct_stop_dockerd).
# CORDON_CONTAINER_START_DAEMON=0 forbids that.
ct_need_docker() {
  command -v "$docker" >/dev/null 2>&1 ||
    ct_skip "no '$docker' command (install Debian's docker.io: scripts/deps.sh test)"
  local err
  if err=$("$docker" info 2>&1 >/dev/null); then return 0; fi
  if [ "$(id -u)" != 0 ] || ! command -v dockerd >/dev/null 2>&1 ||
     [ "${CORDON_CONTAINER_START_DAEMON:-1}" = 0 ]; then
    ct_skip "the Docker daemon does not answer: $err"
  fi
  mkdir -p "$cache"
  echo "$ct_name: no Docker daemon answers; starting dockerd (log: $cache/dockerd.log)" >&2
  dockerd >"$cache/dockerd.log" 2>&1 &
  ct_started_dockerd=$!
  for _ in $(seq 1 60); do
    if "$docker" info >/dev/null 2>&1; then return 0; fi
    if ! kill -0 "$ct_started_dockerd" 2>/dev/null; then
      wait "$ct_started_dockerd" 2>/dev/null || true
      ct_started_dockerd=
      ct_skip "dockerd exited while starting; its log ($cache/dockerd.log) ends with:
$(tail -n 5 "$cache/dockerd.log")"
    fi
    sleep 0.5
  done
  ct_stop_dockerd
  ct_skip "dockerd did not answer within 30 s; its log ($cache/dockerd.log) ends with:
$(tail -n 5 "$cache/dockerd.log")"
}
