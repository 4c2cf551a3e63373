#include "commands/program_tables.h"

#include <fmt/format.h>

#include <algorithm>
#include <mutex>

#include "commands/program_data.h"
#include "core/strings.h"

namespace cordon {

struct ProgramTables::Parsed {
  std::mutex mu;
  std::vector<std::unique_ptr<ProgramSpec>> tables;  // by section; null until parsed
  std::vector<std::string> errors;                   // by section: why it does not parse
  // file -> its option sets, parsed with the first table of the file that is parsed
  std::map<std::string_view, std::vector<ProgramSpec>, std::less<>> sets;
  std::once_flag all_once;
  std::vector<ProgramSpec> all;
};

ProgramTables::ProgramTables() : parsed_(std::make_unique<Parsed>()) {}
ProgramTables::~ProgramTables() = default;
ProgramTables::ProgramTables(ProgramTables&&) noexcept = default;
ProgramTables& ProgramTables::operator=(ProgramTables&&) noexcept = default;

namespace {

// Calls on_header(line_text, line_number, offset_of_line) for each `[header]` line of `text`
// (a line that, trimmed as the parser trims it, starts with `[`).
template <typename F>
std::optional<std::string> each_header(std::string_view text, F on_header) {
  int line = 0;
  for (size_t pos = 0; pos < text.size();) {
    size_t nl = text.find('\n', pos);
    size_t end = nl == std::string_view::npos ? text.size() : nl;
    ++line;
    std::string_view l = trim_view(text.substr(pos, end - pos));
    if (!l.empty() && l[0] == '[')
      if (auto err = on_header(l, line, pos)) return err;
    pos = end + 1;
  }
  return std::nullopt;
}

}  // namespace

Result<ProgramTables> ProgramTables::index() {
  ProgramTables t;
  for (const auto& f : program_data_files()) {
    if (f.name == "exact.txt") {
      auto e = parse_exact_entries(f.name, f.text);
      if (!e.ok()) return e.error();
      t.exact_.insert(t.exact_.end(), e->begin(), e->end());
      continue;
    }
    std::vector<Section> here;
    std::vector<size_t> starts;
    auto err = each_header(
        f.text, [&](std::string_view l, int line, size_t at) -> std::optional<std::string> {
          auto names = parse_table_header(l);
          if (!names.ok()) return fmt::format("{}:{}: {}", f.name, line, names.error().message);
          here.push_back({std::move(*names), f.name, {}, line});
          starts.push_back(at);
          return std::nullopt;
        });
    if (err) return make_error(ErrorKind::kConfig, *err);
    starts.push_back(f.text.size());
    for (size_t i = 0; i < here.size(); ++i)
      here[i].text = f.text.substr(starts[i], starts[i + 1] - starts[i]);
    for (auto& sec : here) {
      bool set =
          sec.names.size() == 1 && sec.names[0].size() == 1 && starts_with(sec.names[0][0], "@");
      (set ? t.set_sections_[f.name] : t.sections_).push_back(std::move(sec));
    }
  }
  for (size_t i = 0; i < t.exact_.size(); ++i) t.exact_by_program_[t.exact_[i][0]].push_back(i);
  for (size_t i = 0; i < t.sections_.size(); ++i) {
    const Section& s = t.sections_[i];
    for (size_t n = 0; n < s.names.size(); ++n) {
      auto& v = t.by_program_[s.names[n][0]];
      for (const auto& [other, k] : v)
        if (t.sections_[other].names[k] == s.names[n])
          return make_error(ErrorKind::kConfig, "[" + join(s.names[n], " ") +
                                                    "] is defined twice (" +
                                                    std::string(t.sections_[other].file) + " and " +
                                                    std::string(s.file) + ")");
      v.emplace_back(i, n);
    }
  }
  for (auto& [p, v] : t.by_program_)
    std::stable_sort(v.begin(), v.end(), [&](const auto& a, const auto& b) {
      return t.sections_[a.first].names[a.second].size() >
             t.sections_[b.first].names[b.second].size();
    });
  t.parsed_->tables.resize(t.sections_.size());
  t.parsed_->errors.resize(t.sections_.size());
  return t;
}

Result<const ProgramSpec*> ProgramTables::table(size_t i) const {
  Parsed& p = *parsed_;
  std::lock_guard<std::mutex> lock(p.mu);
  if (p.tables[i]) return p.tables[i].get();
  if (!p.errors[i].empty()) return make_error(ErrorKind::kConfig, p.errors[i]);
  const Section& s = sections_[i];
  auto sets = p.sets.find(s.file);
  if (sets == p.sets.end()) {
    std::vector<ProgramSpec> parsed;
    if (auto it = set_sections_.find(s.file); it != set_sections_.end())
      for (const Section& set : it->second)
        if (auto r = parse_program_section(set.file, set.text, set.line, {}); r.ok())
          parsed.push_back(std::move(*r));
    sets = p.sets.emplace(s.file, std::move(parsed)).first;
  }
  auto r = parse_program_section(s.file, s.text, s.line, sets->second);
  if (!r.ok()) {
    p.errors[i] = r.error().message;
    return r.error();
  }
  p.tables[i] = std::make_unique<ProgramSpec>(std::move(*r));
  return p.tables[i].get();
}

// A table that does not parse is no table: the command asks (the unit tests keep the data sound).
const ProgramSpec* ProgramTables::table_or_null(size_t i) const {
  auto r = table(i);
  return r.ok() ? *r : nullptr;
}

const std::vector<ProgramSpec>& ProgramTables::specs() const {
  std::call_once(parsed_->all_once, [&] {
    for (size_t i = 0; i < sections_.size(); ++i)
      if (const ProgramSpec* s = table_or_null(i)) parsed_->all.push_back(*s);
  });
  return parsed_->all;
}

// Each file parsed whole (which also sees lines outside any section) and each table on its own
// must agree: the same tables, at the same lines, with the same options.
std::string ProgramTables::check() const {
  std::vector<ProgramSpec> whole;
  for (const auto& f : program_data_files()) {
    if (f.name == "exact.txt") continue;
    auto r = parse_program_specs(f.name, f.text);
    if (!r.ok()) return r.error().message;
    for (auto& s : *r) whole.push_back(std::move(s));
  }
  if (whole.size() != sections_.size())
    return fmt::format("{} tables parsed whole, {} one by one", whole.size(), sections_.size());
  for (size_t i = 0; i < sections_.size(); ++i) {
    auto r = table(i);
    if (!r.ok()) return r.error().message;
    const ProgramSpec& a = whole[i];
    const ProgramSpec& b = **r;
    if (a.names != b.names || a.line != b.line || a.file != b.file ||
        a.options.size() != b.options.size() || a.examples.size() != b.examples.size())
      return fmt::format("{}:{}: [{}] reads differently on its own", b.file, b.line,
                         b.display_name());
  }
  return "";
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
    if (sections_[i].names[k].size() == 1)
      parent = table_or_null(i);
    else
      children = true;
  }
  // The longest entry whose words follow the program (after `prefix` global options).
  auto child_at = [&](size_t prefix) -> bool {
    for (const auto& [i, k] : candidates) {
      const auto& n = sections_[i].names[k];
      if (n.size() < 2 || prefix + n.size() - 1 > args.size()) continue;
      bool ok = true;
      for (size_t w = 1; w < n.size() && ok; ++w) ok = args[prefix + w - 1].text == n[w];
      if (!ok) continue;
      const ProgramSpec* s = table_or_null(i);
      if (!s) continue;
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
    auto t = ProgramTables::index();
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
