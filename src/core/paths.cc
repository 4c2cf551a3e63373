#include "core/paths.h"

#include <vector>

namespace cordon {

namespace {

// PERF-1: most paths handed around are normal already (every fact's path is made by path_join):
// one scan says so, without splitting and joining them again.
bool already_normal(std::string_view p) {
  if (p == "/" || p == ".") return true;
  if (p.back() == '/') return false;
  size_t i = p[0] == '/' ? 1 : 0;
  while (i < p.size()) {
    size_t j = p.find('/', i);
    if (j == std::string_view::npos) j = p.size();
    std::string_view part = p.substr(i, j - i);
    if (part.empty() || part == "." || part == "..") return false;
    i = j + 1;
  }
  return true;
}

}  // namespace

std::string normalize_path(std::string_view p) {
  if (p.empty()) return "";
  if (already_normal(p)) return std::string(p);
  bool absolute = p[0] == '/';
  std::vector<std::string_view> parts;
  size_t i = 0;
  while (i <= p.size()) {
    size_t j = p.find('/', i);
    if (j == std::string_view::npos) j = p.size();
    std::string_view part = p.substr(i, j - i);
    if (part.empty() || part == ".") {
      // skip
    } else if (part == "..") {
      if (!parts.empty() && parts.back() != "..")
        parts.pop_back();
      else if (!absolute)
        parts.push_back(part);
    } else {
      parts.push_back(part);
    }
    i = j + 1;
  }
  std::string out = absolute ? "/" : "";
  for (size_t k = 0; k < parts.size(); ++k) {
    if (k) out += '/';
    out += parts[k];
  }
  if (out.empty()) return ".";
  return out;
}

std::string path_join(std::string_view a, std::string_view b) {
  if (!b.empty() && b[0] == '/') return normalize_path(b);
  std::string s(a);
  s += '/';
  s += b;
  return normalize_path(s);
}

std::string path_parent(std::string_view p) {
  std::string n = normalize_path(p);
  size_t pos = n.rfind('/');
  if (pos == std::string::npos) return ".";
  if (pos == 0) return "/";
  return n.substr(0, pos);
}

std::string path_base(std::string_view p) {
  std::string n = normalize_path(p);
  size_t pos = n.rfind('/');
  if (pos == std::string::npos) return n;
  if (n == "/") return "/";
  return n.substr(pos + 1);
}

bool path_within(std::string_view p, std::string_view root) {
  if (root == "/") return !p.empty() && p[0] == '/';
  if (p.size() < root.size()) return false;
  if (p.substr(0, root.size()) != root) return false;
  return p.size() == root.size() || p[root.size()] == '/';
}

bool path_within_any(std::string_view p, const std::vector<std::string>& roots) {
  for (const auto& r : roots)
    if (path_within(p, r)) return true;
  return false;
}

std::string path_relative(std::string_view p, std::string_view root) {
  if (p == root) return "";
  // Not below root (a git folder outside a linked worktree, a sibling with a shared prefix):
  // the path itself, never a slice of it (GIT-2: this once aborted every command).
  if (!path_within(p, root)) return std::string(p);
  if (root == "/") return std::string(p.substr(1));
  return std::string(p.substr(root.size() + 1));
}

std::string expand_home(std::string_view p, std::string_view home) {
  if (p == "~") return std::string(home);
  if (p.size() >= 2 && p[0] == '~' && p[1] == '/') return path_join(home, p.substr(2));
  return std::string(p);
}

std::string tilde_path(std::string_view p, std::string_view home) {
  if (!home.empty() && home != "/" && path_within(p, home)) {
    if (p == home) return "~";
    return "~/" + path_relative(p, home);
  }
  return std::string(p);
}

}  // namespace cordon
