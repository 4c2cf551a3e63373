#include "plan/protected_list.h"

#include "core/paths.h"
#include "core/strings.h"

namespace cordon {

const std::vector<std::string>& default_protected_entries() {
  static const std::vector<std::string> list = {
      ".envrc",
      ".vscode/",
      ".idea/",
      ".zed/",
      ".devcontainer/",
      ".claude/",
      ".agents/",
      ".codex/",
      ".gemini/",
      ".cursor/",
      ".cursorrules",
      "CLAUDE.md",
      "AGENTS.md",
      "GEMINI.md",
      ".mcp.json",
      ".github/workflows/",
      ".github/copilot-instructions.md",
      ".gitlab-ci.yml",
      ".circleci/",
      ".pre-commit-config.yaml",
      ".husky/",
      ".cargo/config.toml",
      ".cargo/config",
      ".gitmodules",
      ".cordon/",
      "**/build.rs",
      "**/conftest.py",
      "**/Makefile",
      "**/package.json",
  };
  return list;
}

namespace {
ProtectEntry parse_entry(const std::string& e, const char* why) {
  ProtectEntry p;
  p.why = why;
  std::string s = e;
  if (starts_with(s, "**/")) {
    p.anywhere = true;
    s = s.substr(3);
  }
  if (ends_with(s, "/")) {
    p.folder = true;
    while (ends_with(s, "/")) s.pop_back();
  }
  p.rel = normalize_path(s);
  return p;
}
}  // namespace

std::vector<ProtectEntry> protected_entries(const Policy& policy) {
  std::vector<ProtectEntry> out;
  for (const auto& e : default_protected_entries()) out.push_back(parse_entry(e, "default list"));
  for (const auto& e : policy.protect) {
    ProtectEntry p = parse_entry(e, "[sandbox] protect");
    bool dup = false;
    for (const auto& o : out)
      if (o.rel == p.rel && o.anywhere == p.anywhere) dup = true;
    if (!dup) out.push_back(std::move(p));
  }
  return out;
}

bool is_protected_path(const std::vector<ProtectEntry>& entries, const std::string& rel_in) {
  std::string rel = normalize_path(rel_in);
  if (rel == ".claude/worktrees" || starts_with(rel, ".claude/worktrees/")) return false;
  for (const auto& e : entries) {
    if (e.anywhere) {
      if (path_base(rel) == e.rel) return true;
      continue;
    }
    if (rel == e.rel) return true;
    if (e.folder && starts_with(rel, e.rel + "/")) return true;
  }
  return false;
}

}  // namespace cordon
