#include "commands/program_tables.h"

#include <algorithm>

#include "commands/program_data.h"
#include "core/strings.h"

namespace cordon {

Result<ProgramTables> ProgramTables::build() {
  ProgramTables t;
  for (const auto& f : program_data_files()) {
    if (f.name == "exact.txt") {
      auto e = parse_exact_entries(f.name, f.text);
      if (!e.ok()) return e.error();
      t.exact_.insert(t.exact_.end(), e->begin(), e->end());
      continue;
    }
    auto s = parse_program_specs(f.name, f.text);
    if (!s.ok()) return s.error();
    for (auto& spec : *s) t.specs_.push_back(std::move(spec));
  }
  for (size_t i = 0; i < t.exact_.size(); ++i) t.exact_by_program_[t.exact_[i][0]].push_back(i);
  for (size_t i = 0; i < t.specs_.size(); ++i) {
    const ProgramSpec& s = t.specs_[i];
    for (size_t n = 0; n < s.names.size(); ++n) {
      auto& v = t.by_program_[s.names[n][0]];
      for (const auto& [other, k] : v)
        if (t.specs_[other].names[k] == s.names[n])
          return make_error(ErrorKind::kConfig, "[" + join(s.names[n], " ") +
                                                    "] is defined twice (" + t.specs_[other].file +
                                                    " and " + s.file + ")");
      v.emplace_back(i, n);
    }
  }
  for (auto& [p, v] : t.by_program_)
    std::stable_sort(v.begin(), v.end(), [&](const auto& a, const auto& b) {
      return t.specs_[a.first].names[a.second].size() > t.specs_[b.first].names[b.second].size();
    });
  return t;
}

bool ProgramTables::is_exact(const std::vector<std::string>& argv) const {
  if (argv.empty()) return false;
  auto it = exact_by_program_.find(argv[0]);
  if (it == exact_by_program_.end()) return false;
  for (size_t i : it->second)
    if (exact_[i] == argv) return true;
  return false;
}

ProgramTables::Selection ProgramTables::select(const std::string& program,
                                               const std::vector<ArgWord>& args) const {
  Selection sel;
  auto it = by_program_.find(program);
  if (it == by_program_.end()) return sel;
  const auto& candidates = it->second;
  const ProgramSpec* parent = nullptr;
  bool children = false;
  for (const auto& [i, k] : candidates) {
    if (specs_[i].names[k].size() == 1)
      parent = &specs_[i];
    else
      children = true;
  }
  // The longest entry whose words follow the program (after `prefix` global options).
  auto child_at = [&](size_t prefix) -> bool {
    for (const auto& [i, k] : candidates) {
      const ProgramSpec* s = &specs_[i];
      const auto& n = s->names[k];
      if (n.size() < 2 || prefix + n.size() - 1 > args.size()) continue;
      bool ok = true;
      for (size_t w = 1; w < n.size() && ok; ++w) ok = args[prefix + w - 1].text == n[w];
      if (!ok) continue;
      sel.spec = s;
      sel.parent = parent;
      sel.words = n.size() - 1;
      sel.prefix = prefix;
      sel.name = join(n, " ");
      return true;
    }
    return false;
  };
  if (children && child_at(0)) return sel;
  if (children && parent) {
    size_t end = 0;
    auto problem = check_global_prefix(*parent, args, end);
    if (problem) {
      sel.spec = parent;
      sel.name = program;
      sel.prefix_problem = problem;
      return sel;
    }
    if (end > 0 && child_at(end)) return sel;
  }
  if (!parent) {
    sel.name = program;
    if (!args.empty()) sel.unknown_child = program + " " + args[0].text;
    return sel;
  }
  sel.spec = parent;
  sel.name = program;
  if (children) {
    size_t end = 0;
    check_global_prefix(*parent, args, end);
    if (end < args.size() && !args[end].text.empty() && args[end].text[0] != '-')
      sel.unknown_child = program + " " + args[end].text;
  }
  return sel;
}

namespace {

struct Built {
  ProgramTables tables;
  std::string error;
};

const Built& built() {
  static const Built b = [] {
    Built out;
    auto t = ProgramTables::build();
    if (t.ok())
      out.tables = std::move(*t);
    else
      out.error = t.error().message;
    return out;
  }();
  return b;
}

}  // namespace

const ProgramTables& builtin_program_tables() { return built().tables; }
const std::string& builtin_program_tables_error() { return built().error; }

}  // namespace cordon
