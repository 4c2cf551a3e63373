#include "plan/planted_rules.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "core/paths.h"
#include "core/strings.h"
#include "plan/protected_list.h"

namespace cordon {

const std::vector<PlantedName>& planted_names() {
  static const std::vector<PlantedName> kNames = {
      {".git",
       "a nested git repository: its config can name an fsmonitor or hooks that "
       "editors, shell prompts and agents run in that folder"},      // GIT-8
      {".envrc", "direnv runs it when a shell enters that folder"},  // PROT-6
      {"CLAUDE.md", "Claude Code reads it when it works in that folder"},
      {"CLAUDE.local.md", "Claude Code reads it when it works in that folder"},
      {"AGENTS.md", "Codex and other agents read it when they work in that folder"},
      {"AGENTS.override.md", "Codex reads it when it works in that folder"},
      {"GEMINI.md", "Gemini CLI reads it from every folder of the project"},
      {".cursor", "Cursor reads nested rules from it"},
  };
  return kNames;
}

const PlantedName* planted_name(const std::string& name) {
  for (const auto& n : planted_names())
    if (name == n.name) return &n;
  return nullptr;
}

namespace {

// PROT-6: the PROT-1 entries read below the root, split into components, with their rows.
struct BelowRootEntry {
  std::vector<std::string> parts;
  bool folder;
  const ProtectedRow* row;
};

const std::vector<BelowRootEntry>& below_root_entries() {
  static const std::vector<BelowRootEntry> list = [] {
    std::vector<BelowRootEntry> out;
    for (const auto& r : protected_rows()) {
      std::string e = r.entry;
      if (!r.below_root || starts_with(e, "**/")) continue;
      bool folder = ends_with(e, "/");
      while (ends_with(e, "/")) e.pop_back();
      out.push_back({split(e, '/'), folder, &r});
    }
    return out;
  }();
  return list;
}

// The components of a relative path, as views into it.
std::vector<std::string_view> components(std::string_view rel) {
  std::vector<std::string_view> out;
  size_t start = 0;
  while (start <= rel.size()) {
    size_t slash = rel.find('/', start);
    if (slash == std::string_view::npos) slash = rel.size();
    if (slash > start) out.push_back(rel.substr(start, slash - start));
    start = slash + 1;
  }
  return out;
}

// Called for every entry of every folder the index lists (PERF-3): a sorted table, searched.
bool first_component_of_an_entry(std::string_view name) {
  static const std::vector<std::string> firsts = [] {
    std::vector<std::string> out;
    for (const auto& e : below_root_entries()) out.push_back(e.parts.front());
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
  }();
  auto it = std::lower_bound(firsts.begin(), firsts.end(), name,
                             [](const std::string& a, std::string_view b) { return a < b; });
  return it != firsts.end() && *it == name;
}

}  // namespace

// Inside a PROT-1 entry at the root (`.claude/.mcp.json`, `.config/mise.toml`): PROT-1's own
// aftercare judges it (PROT-5), and it must not be moved twice.
bool inside_root_entry(std::string_view rel) {
  static const std::vector<ProtectEntry> entries = [] {
    std::vector<ProtectEntry> out;
    for (auto& e : protected_entries(Policy{}))
      if (!e.anywhere) out.push_back(std::move(e));
    return out;
  }();
  return is_protected_path(entries, std::string(rel));
}

const ProtectedRow* planted_protected_row(std::string_view rel, bool* exact) {
  // What cordon moved aside is the user's to restore (PROT-7), never moved again.
  if (rel.find(".cordon-quarantined-") != std::string_view::npos) return nullptr;
  if (inside_root_entry(rel)) return nullptr;
  std::vector<std::string_view> c = components(rel);
  for (size_t i = 1; i < c.size(); ++i) {
    if (c[i - 1] == "node_modules") return nullptr;
    for (const auto& e : below_root_entries()) {
      size_t m = e.parts.size();
      if (i + m > c.size()) continue;
      bool match = true;
      for (size_t j = 0; j < m && match; ++j) match = c[i + j] == e.parts[j];
      if (!match) continue;
      if (i + m < c.size() && !e.folder) continue;  // inside a file: not a path
      // Agents keep git worktrees in .claude/worktrees/ (PROT-1's exception).
      if (i + m < c.size() && e.parts.back() == ".claude" && c[i + m] == "worktrees") continue;
      if (exact) *exact = i + m == c.size();
      return e.row;
    }
  }
  return nullptr;
}

bool watched_entry(std::string_view folder_rel, std::string_view name) {
  if (planted_name(std::string(name))) return true;
  if (folder_rel.empty()) return false;  // root entries: PROT-1's own
  if (first_component_of_an_entry(name)) return true;
  // Inside (or on the way into) an entry: only a folder whose path holds an entry's first
  // component can be one. One folder's entries come in a row: remember the last answer.
  thread_local std::string last_folder;
  thread_local bool last_may = false;
  if (folder_rel != last_folder) {
    last_folder = std::string(folder_rel);
    last_may = false;
    for (auto part : components(folder_rel)) last_may |= first_component_of_an_entry(part);
  }
  if (!last_may) return false;
  std::string rel = std::string(folder_rel) + "/" + std::string(name);
  if (planted_protected_row(rel)) return true;
  // A component on the way to a longer entry (`sub/.github` holding `instructions`).
  std::vector<std::string_view> c = components(rel);
  for (size_t i = 1; i < c.size(); ++i)
    for (const auto& e : below_root_entries()) {
      size_t have = c.size() - i;
      if (have >= e.parts.size()) continue;
      bool match = true;
      for (size_t j = 0; j < have && match; ++j) match = c[i + j] == e.parts[j];
      if (match) return true;
    }
  return false;
}

std::vector<PlantedFind> new_plants(const std::vector<DirRecord>& before,
                                    const std::vector<DirChange>& changes, bool root_too) {
  std::map<std::string, const DirChange*> now;
  for (const auto& c : changes) now[c.rel] = &c;
  // PERF-3: only the records of folders that changed (a few of a project's thousands).
  std::map<std::string, const DirRecord*> old;
  if (!now.empty())
    for (const auto& r : before)
      if (now.count(r.rel)) old[r.rel] = &r;
  std::vector<PlantedFind> out;
  for (const auto& c : changes) {
    const DirRecord* prev = nullptr;
    if (!c.fresh) {
      auto it = old.find(c.rel);
      if (it != old.end()) prev = it->second;
    }
    for (const auto& [w, kind] : c.names) {
      // The root: the protected list and the git facts judge it, `.git` always.
      if (c.rel.empty() && (!root_too || w.name == ".git")) continue;
      const Watched* old_w = nullptr;
      if (prev)
        for (const auto& o : prev->names)
          if (o.name == w.name) old_w = &o;
      std::string rel = c.rel.empty() ? w.name : c.rel + "/" + w.name;
      if (const PlantedName* n = planted_name(w.name)) {
        if (!old_w) {
          out.push_back(PlantedFind{rel, kind, n->why, false});
        } else if (w.name == ".git" && old_w->print != w.print) {
          out.push_back(PlantedFind{rel, kind, n->why, true});
        }
        continue;
      }
      bool exact = false;
      const ProtectedRow* row = planted_protected_row(rel, &exact);
      if (!row || old_w) continue;
      if (exact && w.name == ".claude" && kind == Kind::kDir) {
        // PROT-1's exception: a new .claude that holds only worktrees/ is kept.
        auto it = now.find(rel);
        const DirChange* inside = it == now.end() ? nullptr : it->second;
        // What else it holds is recorded (anything inside a `.claude` but worktrees/).
        if (inside && inside->fresh && inside->names.empty()) continue;
      }
      out.push_back(PlantedFind{rel, kind, row->read_by, false});
    }
  }
  std::sort(out.begin(), out.end(),
            [](const PlantedFind& a, const PlantedFind& b) { return a.rel < b.rel; });
  // Nothing inside a path that is itself moved aside.
  std::vector<PlantedFind> kept;
  for (auto& f : out) {
    bool inside = false;
    for (const auto& k : kept) inside |= f.rel != k.rel && path_within(f.rel, k.rel);
    if (!inside) kept.push_back(std::move(f));
  }
  return kept;
}

std::string planted_note(const PlantedFind& f, const std::string& moved_to,
                         const std::string& reason) {
  if (!reason.empty())
    return fmt::format(
        "the command {} {}, a git folder that is not known clean ({}) — git would run what it "
        "names when you work there — so cordon moved it to {}. To keep it, check it and move "
        "it back yourself.",
        f.changed ? "changed" : "created", f.rel, reason, moved_to);
  return fmt::format(
      "the command created {} — {} — so cordon moved it to {}. To keep it, move "
      "it back yourself after checking it.",
      f.rel, f.why, moved_to);
}

}  // namespace cordon
