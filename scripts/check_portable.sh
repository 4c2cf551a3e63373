#!/usr/bin/env bash
# MAC-5 (issue 19 item 5): Linux-only headers and calls stay in the layers' Linux folders
# (src/<layer>/linux, which only a Linux build compiles) and the host facts (src/host). Files
# that still use them elsewhere are listed below: the work left for a macOS build. A file not
# listed that starts using one fails this check; a listed file that no longer does fails it
# too, so the list only shrinks.
set -euo pipefail
cd "$(dirname "$0")/.."

pattern='#include <(linux/|sys/prctl|sys/syscall|sys/mount|sys/sysmacros|sys/inotify|sys/epoll|sys/signalfd|sys/eventfd|sys/statfs|sys/vfs|seccomp)|\bSYS_[a-z_]+|pidfd|memfd_create|\bO_PATH\b|\bprctl\(|"/proc/(self|%d|[0-9])'

# Still Linux-only, outside the Linux folders and the host facts (the port's to-do list): none
# now. The last ones went behind host/self_protection.h (prctl), host/file_open.h (O_PATH,
# statfs, /proc/self/fd, st_mtim) and a pipe in sys/cancel.cc (was an eventfd).
known=()

# Comment lines do not count.
found=$(grep -rnE "$pattern" src --include='*.cc' --include='*.h' |
  grep -vE '^[^:]+:[0-9]+:[[:space:]]*//' | cut -d: -f1 |
  grep -vE '^src/([a-z_]+/linux|host)/' | sort -u || true)
status=0
for f in $found; do
  if [[ ! " ${known[*]} " == *" $f "* ]]; then
    echo "check_portable: $f uses a Linux-only header or call outside src/<layer>/linux and src/host:" >&2
    grep -nE "$pattern" "$f" | head -5 >&2
    echo "  Fix: move it behind an interface in src/host or a layer's linux/ folder." >&2
    status=1
  fi
done
for f in "${known[@]}"; do
  if ! grep -qx "$f" <<<"$found"; then
    echo "check_portable: $f is portable now: remove it from the list in $0." >&2
    status=1
  fi
done
# The stat times have Linux names (st_mtim, st_ctim, st_atim; macOS: st_mtimespec, ...): not
# even the host facts may use them outside host/file_open.cc, which names each system's.
times=$(grep -rnE '\bst_[acm]tim\b' src --include='*.cc' --include='*.h' |
  grep -vE '^[^:]+:[0-9]+:[[:space:]]*//' |
  grep -vE '^src/([a-z_]+/linux/|host/file_open\.cc:)' || true)
if [ -n "$times" ]; then
  echo "check_portable: a stat time by its Linux name, which macOS lacks:" >&2
  echo "$times" | head -5 >&2
  echo "  Fix: use stat_mtime/stat_ctime (host/file_open.h)." >&2
  status=1
fi
[ $status -eq 0 ] && echo "check_portable: ok (${#known[@]} files left for the macOS port)"
exit $status
