#!/usr/bin/env bash
# Issue 15 item 8: the pure archive (cordon_pure: core, config, plan, commands, approval, the
# file rules, the renderers, the integrations) touches nothing of the host. It fails when the
# archive references a call that changes files or processes (mkdir, rename, unlinkat, fork,
# execve, open, ...), or any cordon function it does not itself define (a call into a higher
# layer, which the include paths let through only for a header's data types).
set -euo pipefail
cd "$(dirname "$0")/.."
lib=${1:-${BUILD:-build}/libcordon_pure.a}
[ -f "$lib" ] || { echo "check_pure: $lib does not exist; build the cordon_pure target" >&2; exit 1; }

forbidden='mkdir|mkdirat|rename|renameat|renameat2|unlink|unlinkat|rmdir|fork|vfork|clone|clone3|execve|execv|execvp|execvpe|fexecve|posix_spawnp?|open|open64|openat|openat64|openat2|creat|opendir|fdopendir|chdir|fchdir|kill|symlink|symlinkat|link|linkat|chmod|fchmod|fchmodat|chown|lchown|fchownat|truncate|ftruncate|mount|umount2|pidfd_open|waitpid|wait4|eventfd|getrandom|fsync'
status=0

# nm -A: "archive:member.o:   U symbol".
bad=$(nm -A -u "$lib" 2>/dev/null | awk '{print $1, $NF}' | sed -E 's/@[^ ]*$//' |
  awk -v re="^($forbidden)$" '$2 ~ re {sub(/^[^:]*:/, "", $1); sub(/:$/, "", $1); print $1 " calls " $2}' | sort -u)
if [ -n "$bad" ]; then
  echo "check_pure: $lib references calls that touch the host:" >&2
  echo "$bad" | sed 's/^/  /' >&2
  echo "  Fix: move that code to the host side (src/sys, src/host, the launchers) and keep" >&2
  echo "  the decision in the pure layers as a function of its inputs." >&2
  status=1
fi

defined=$(nm --defined-only "$lib" 2>/dev/null | awk 'NF>=3 {print $3}' | sort -u)
used=$(nm -u "$lib" 2>/dev/null | awk '$1=="U" {print $2}' | grep -E '6cordon' | sort -u || true)
climbing=$(comm -23 <(echo "$used") <(echo "$defined") | grep -v '^$' || true)
if [ -n "$climbing" ]; then
  echo "check_pure: $lib calls cordon code it does not hold (a higher layer):" >&2
  echo "$climbing" | c++filt | sed 's/^/  /' >&2
  status=1
fi
[ $status -eq 0 ] && echo "check_pure: ok ($lib calls no host-changing function and no higher layer)"
exit $status
