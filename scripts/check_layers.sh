#!/usr/bin/env bash
# Issue 15 item 8: a lower layer cannot include a higher one's header. Each layer compiles
# with only its own include tree and its dependencies' (build/layers/<layer>, made by
# cmake/CordonLayers.cmake); this compiles one climbing include per boundary with a layer's
# trees and fails unless the compiler says the header does not exist, and checks that a layer
# still sees its own headers.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
CXX=${CXX:-c++}
layers="$BUILD/layers"
[ -d "$layers/core" ] || { echo "check_layers: $layers is missing; configure $BUILD first" >&2; exit 1; }
status=0

# trees LAYER...: the -I options of those layers' trees and the public headers.
trees() { for l in "$@"; do printf -- '-I%s ' "$layers/$l"; done; printf -- '-Iinclude'; }

# climb "LAYERS SEEN" HEADER: including HEADER with those trees must fail: no such file.
climb() {
  local out
  # shellcheck disable=SC2046
  if out=$(echo "#include \"$2\"" | $CXX -std=c++20 -fsyntax-only $(trees $1) -x c++ - 2>&1); then
    echo "check_layers: with the trees of [$1], \"$2\" can be included: the layer below climbs" >&2
    status=1
  elif ! grep -q "No such file" <<<"$out"; then
    echo "check_layers: \"$2\" failed for another reason with [$1]:" >&2
    echo "$out" | head -5 >&2
    status=1
  fi
}
# sees "LAYERS SEEN" HEADER: a layer's own (or a lower) header compiles.
sees() {
  # shellcheck disable=SC2046
  echo "#include \"$2\"" | $CXX -std=c++20 -fsyntax-only $(trees $1) -x c++ - ||
    { echo "check_layers: [$1] cannot include \"$2\"" >&2; status=1; }
}

pure="core config plan commands approval file_rules render integrations audit"
sees "$pure" plan/plan.h
sees "$pure" commands/classify.h
climb "$pure" sys/fs_util.h                  # cordon's own files: the host side
climb "$pure" host/git_facts.h               # facts are read above the planner
climb "$pure" session/session.h
climb "$pure" jsonrpc/jsonrpc_serve.h
climb "$pure" process/process.h              # the renderers see no launcher's types (issue 29)
climb "$pure" launch/linux/launcher.h
climb "core config" plan/plan.h              # config is below the planner
climb "core audit" config/policy.h           # the audit events know only core (AUD-1)
climb "core config plan" commands/classify.h # and the planner below the commands
climb "core sys config process" host/path_info.h
climb "core sys config process commands file_rules approval plan render host" launch/linux/launcher.h
climb "$pure sys process host render launch" api/face_options.h   # internal to the faces
[ $status -eq 0 ] && echo "check_layers: ok (no layer sees a higher layer's headers)"
exit $status
