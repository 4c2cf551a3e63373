// libFuzzer target: the path helpers (core/paths.h) never crash or slice past a string's end,
// whatever the two paths — inside the root, outside it, beside it (a shared prefix), shorter
// than it (a linked worktree's common git folder, GIT-2) — and keep their invariants:
//   path_within(p, root)  =>  path_join(root, path_relative(p, root)) == p
//   !path_within(p, root) =>  path_relative(p, root) == p
#include <cstddef>
#include <cstdint>
#include <string>

#include "core/paths.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string in(reinterpret_cast<const char*>(data), size);
  size_t cut = in.find('\n');
  std::string a = in.substr(0, cut), b = cut == std::string::npos ? "" : in.substr(cut + 1);
  using namespace cordon;
  // Raw, as callers sometimes pass them, and normalized absolute, as the contract says.
  (void)path_relative(a, b);
  (void)tilde_path(a, b);
  (void)expand_home(a, b);
  (void)path_parent(a);
  (void)path_base(a);
  std::string p = normalize_path("/" + a), root = normalize_path("/" + b);
  std::string rel = path_relative(p, root);
  if (path_within(p, root)) {
    if (path_join(root, rel) != p) __builtin_trap();
  } else if (rel != p) {
    __builtin_trap();
  }
  if (!path_within(p, "/")) __builtin_trap();
  if (!path_within(p, path_parent(p))) __builtin_trap();
  return 0;
}
