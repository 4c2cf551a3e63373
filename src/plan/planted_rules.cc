#include "plan/planted_rules.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "core/paths.h"
#include "core/strings.h"

namespace cordon {

const std::vector<PlantedName>& planted_names() {
  static const std::vector<PlantedName> kNames = {
      {".git",
       "a nested git repository: its config can name an fsmonitor or hooks that "
       "editors, shell prompts and agents run in that folder (GIT-8)"},
      {".envrc", "direnv runs it when a shell enters that folder (PROT-6)"},
      {"CLAUDE.md", "Claude Code reads it when it works in that folder (PROT-6)"},
      {"CLAUDE.local.md", "Claude Code reads it when it works in that folder (PROT-6)"},
      {"AGENTS.md", "Codex and other agents read it when they work in that folder (PROT-6)"},
      {"AGENTS.override.md", "Codex reads it when it works in that folder (PROT-6)"},
      {"GEMINI.md", "Gemini CLI reads it from every folder of the project (PROT-6)"},
      {".cursor", "Cursor reads nested rules from it (PROT-6)"},
  };
  return kNames;
}

const PlantedName* planted_name(const std::string& name) {
  for (const auto& n : planted_names())
    if (name == n.name) return &n;
  return nullptr;
}

std::vector<PlantedFind> new_plants(const std::vector<DirRecord>& before,
                                    const std::vector<DirChange>& changes) {
  std::map<std::string, const DirRecord*> old;
  for (const auto& r : before) old[r.rel] = &r;
  std::vector<PlantedFind> out;
  for (const auto& c : changes) {
    const DirRecord* prev = nullptr;
    if (!c.fresh) {
      auto it = old.find(c.rel);
      if (it != old.end()) prev = it->second;
    }
    for (const auto& [w, kind] : c.names) {
      if (c.rel.empty()) continue;  // the root: the protected list and the git facts judge it
      const PlantedName* n = planted_name(w.name);
      if (!n) continue;
      const Watched* old_w = nullptr;
      if (prev)
        for (const auto& o : prev->names)
          if (o.name == w.name) old_w = &o;
      if (!old_w) {
        out.push_back(PlantedFind{c.rel + "/" + w.name, kind, n->why, false});
      } else if (w.name == ".git" && old_w->print != w.print) {
        out.push_back(PlantedFind{c.rel + "/" + w.name, kind, n->why, true});
      }
    }
  }
  std::sort(out.begin(), out.end(),
            [](const PlantedFind& a, const PlantedFind& b) { return a.rel < b.rel; });
  return out;
}

bool checkout_of_this_repository(const std::string& gitdir_real, const std::string& common_dir,
                                 const std::string& config_text) {
  if (gitdir_real.empty() || common_dir.empty()) return false;
  bool inside = false;
  for (const char* sub : {"modules", "worktrees"}) {
    std::string folder = path_join(common_dir, sub);
    if (gitdir_real != folder && path_within(gitdir_real, folder)) inside = true;
  }
  return inside && !git_config_runs_programs(config_text);
}

namespace {

bool boolean_word(const std::string& v) {
  std::string l = to_lower(trim(v));
  return l.empty() || l == "true" || l == "false" || l == "yes" || l == "no" || l == "on" ||
         l == "off" || l == "1" || l == "0";
}

// The section name of a `[section "sub"]` header, lower-cased ("" when malformed).
std::string section_of(const std::string& line) {
  size_t end = line.find(']');
  if (end == std::string::npos) return "";
  std::string inner = trim(line.substr(1, end - 1));
  size_t sp = inner.find_first_of(" \t\".");
  return to_lower(sp == std::string::npos ? inner : inner.substr(0, sp));
}

}  // namespace

bool git_config_runs_programs(const std::string& text) {
  static const std::set<std::string> kSections = {
      "filter", "diff", "merge",      "credential", "include",  "includeif",
      "pager",  "gpg",  "uploadpack", "sequence",   "difftool", "mergetool"};
  static const std::set<std::string> kCoreKeys = {"hookspath", "sshcommand", "pager",
                                                  "editor",    "askpass",    "gitproxy"};
  std::string section;
  for (std::string line : split(text, '\n')) {
    line = trim(line);
    if (line.empty() || line[0] == '#' || line[0] == ';') continue;
    if (line[0] == '[') {
      section = section_of(line);
      if (section.empty() || kSections.count(section)) return true;
      // A `[section] key = value` on one line: judge the rest too.
      line = trim(line.substr(line.find(']') + 1));
      if (line.empty()) continue;
    }
    size_t eq = line.find('=');
    std::string key = to_lower(trim(line.substr(0, eq)));
    std::string value = eq == std::string::npos ? "" : trim(line.substr(eq + 1));
    if (key.empty() || key.find_first_of(" \t\\\"") != std::string::npos) return true;
    if (section == "core" && kCoreKeys.count(key)) return true;
    if (section == "core" && key == "fsmonitor" && !boolean_word(value)) return true;
    if (section == "alias" && !value.empty() &&
        (value[0] == '!' || (value[0] == '"' && value.size() > 1 && value[1] == '!')))
      return true;
    if (section == "remote" && (key == "uploadpack" || key == "receivepack" || key == "vcs"))
      return true;
    if (value.find('\\') != std::string::npos && value.back() == '\\') return true;
  }
  return false;
}

std::string planted_note(const PlantedFind& f, const std::string& moved_to) {
  return fmt::format(
      "the command created {} — {} — so cordon moved it to {}. To keep it, move "
      "it back yourself after checking it.",
      f.rel, f.why, moved_to);
}

}  // namespace cordon
