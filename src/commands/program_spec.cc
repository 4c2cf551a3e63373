#include "commands/program_spec.h"

#include <fmt/format.h>

#include <cstring>
#include <optional>

#include "core/strings.h"

namespace cordon {

namespace {

struct KindName {
  ArgKind kind;
  const char* name;
};
constexpr KindName kKinds[] = {
    {ArgKind::kText, "TEXT"},
    {ArgKind::kPattern, "PATTERN"},
    {ArgKind::kFile, "FILE"},
    {ArgKind::kDir, "DIR"},
    {ArgKind::kNum, "NUM"},
    {ArgKind::kSedScript, "SEDSCRIPT"},
    {ArgKind::kAwkProgram, "AWKPROG"},
    {ArgKind::kArchive, "ARCHIVE"},
    {ArgKind::kLoopbackUrl, "URL"},
    {ArgKind::kDateFormat, "DATEFMT"},
    {ArgKind::kKey, "KEY"},
    {ArgKind::kHeader, "HEADER"},
    {ArgKind::kJqProgram, "JQPROG"},
};

std::vector<std::string> words_of(std::string_view s) {
  std::vector<std::string> out;
  size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && (s[i] == ' ' || s[i] == '\t' || s[i] == ',')) ++i;
    size_t j = i;
    while (j < s.size() && s[j] != ' ' && s[j] != '\t' && s[j] != ',') ++j;
    if (j > i) out.emplace_back(s.substr(i, j - i));
    i = j;
  }
  return out;
}

// "text: reason" -> ("text", "reason"). The reason starts at the first ": ".
std::pair<std::string, std::string> split_reason(std::string_view s) {
  size_t at = s.find(": ");
  if (at == std::string_view::npos) {
    if (ends_with(s, ":")) return {trim(s.substr(0, s.size() - 1)), ""};
    return {trim(s), ""};
  }
  return {trim(s.substr(0, at)), trim(s.substr(at + 2))};
}

bool is_option_name(std::string_view w) {
  if (w.size() >= 2 && w[0] == '~') return w.size() == 2;  // a ps BSD letter
  if (w.size() < 2 || w[0] != '-') return false;
  if (w == "--") return false;
  for (char c : w.substr(1))
    if (c == '=' || c == '[' || c == ']' || c == ' ') return false;
  return true;
}

class SpecParser {
 public:
  // `first_line`: the line number of text's first line; `more_sets`: option sets defined
  // elsewhere in the file (a section parsed on its own).
  SpecParser(std::string_view file, std::string_view text, int first_line = 1,
             const std::vector<ProgramSpec>* more_sets = nullptr)
      : file_(file), text_(text), line_(first_line - 1), more_sets_(more_sets) {}

  // One section: the table, or the option set its header names.
  Result<ProgramSpec> run_section() {
    auto r = run();
    if (!r.ok()) return r.error();
    if (r->size() + sets_.size() != 1)
      return make_error(ErrorKind::kConfig,
                        fmt::format("{}:{}: not one [header] section", file_, line_));
    return r->empty() ? std::move(sets_[0]) : std::move((*r)[0]);
  }

  Result<std::vector<ProgramSpec>> run() {
    size_t pos = 0;
    while (pos <= text_.size()) {
      size_t nl = text_.find('\n', pos);
      std::string_view raw =
          text_.substr(pos, nl == std::string_view::npos ? std::string_view::npos : nl - pos);
      ++line_;
      pos = nl == std::string_view::npos ? text_.size() + 1 : nl + 1;
      std::string l = trim(raw);
      if (l.empty() || l[0] == '#') continue;
      if (auto err = one(l))
        return make_error(ErrorKind::kConfig, fmt::format("{}:{}: {}", file_, line_, *err));
    }
    if (auto err = finish())
      return make_error(ErrorKind::kConfig, fmt::format("{}: {}", file_, *err));
    if (auto err = resolve())
      return make_error(ErrorKind::kConfig, fmt::format("{}: {}", file_, *err));
    return std::move(out_);
  }

 private:
  std::optional<std::string> one(const std::string& l) {
    if (l[0] == '[') {
      if (auto err = finish()) return err;
      auto names = parse_table_header(l);
      if (!names.ok()) return names.error().message;
      ProgramSpec s;
      s.file = std::string(file_);
      s.line = line_;
      s.names = std::move(*names);
      cur_ = std::move(s);
      return std::nullopt;
    }
    if (!cur_) return std::string("a line before the first [header]");
    ProgramSpec& s = *cur_;
    auto key = [&](std::string_view k) { return starts_with(l, k); };
    if (key("why:")) {
      s.why = trim(std::string_view(l).substr(4));
      return std::nullopt;
    }
    if (key("parser:")) return parser_line(s, std::string_view(l).substr(7));
    if (l == "inherit") {
      s.inherit = true;
      return std::nullopt;
    }
    if (l == "at-files") {
      s.at_files = true;
      return std::nullopt;
    }
    if (l == "runtime-words") {
      s.runtime_words = true;
      return std::nullopt;
    }
    if (key("operands:")) return operands_line(s, std::string_view(l).substr(9));
    if (key("requires:")) {
      auto [names, why] = split_reason(std::string_view(l).substr(9));
      s.requires_any = words_of(names);
      s.requires_why = why;
      return s.requires_any.empty() ? std::optional<std::string>("requires: names no option")
                                    : std::nullopt;
    }
    if (key("use:")) {
      for (auto& w : words_of(std::string_view(l).substr(4))) s.uses.push_back(std::move(w));
      return std::nullopt;
    }
    if (key("unless-here:")) {
      s.unless_here = words_of(std::string_view(l).substr(12));
      return std::nullopt;
    }
    if (key("unless-upward:")) {
      s.unless_upward = words_of(std::string_view(l).substr(14));
      return std::nullopt;
    }
    for (auto [prefix, want] : {std::pair{"ok:", Example::Want::kReadOnly},
                                std::pair{"ask:", Example::Want::kNeedsApproval},
                                std::pair{"deny:", Example::Want::kDenied}}) {
      if (key(prefix)) {
        s.examples.push_back({want, trim(std::string_view(l).substr(std::strlen(prefix)))});
        return std::nullopt;
      }
    }
    return option_line(s, l);
  }

  static std::optional<std::string> parser_line(ProgramSpec& s, std::string_view rest) {
    auto w = words_of(rest);
    if (w.empty()) return std::string("parser: names no style");
    static const std::pair<const char*, ParserStyle> kStyles[] = {
        {"gnu", ParserStyle::kGnu},     {"single-dash", ParserStyle::kSingleDash},
        {"whole", ParserStyle::kWhole}, {"find", ParserStyle::kFind},
        {"tar", ParserStyle::kTar},     {"ps", ParserStyle::kPs}};
    bool found = false;
    for (auto [n, st] : kStyles)
      if (w[0] == n) {
        s.parser = st;
        found = true;
      }
    if (!found) return fmt::format("unknown parser `{}`", w[0]);
    for (size_t i = 1; i < w.size(); ++i) {
      if (w[i] == "abbrev")
        s.abbrev = true;
      else if (w[i] == "posix")
        s.stops_at_operand = true;
      else if (w[i] == "interspersed")
        s.interspersed = true;
      else
        return fmt::format("unknown parser flag `{}`", w[i]);
    }
    return std::nullopt;
  }

  static std::optional<std::string> operands_line(ProgramSpec& s, std::string_view rest) {
    auto [spec, why] = split_reason(rest);
    s.operands_why = why;
    s.operands.clear();
    for (const auto& w : words_of(spec)) {
      if (w == "none") continue;
      OperandSpec o;
      std::string k = w;
      if (k.size() > 2 && k.front() == '[' && k.back() == ']') {
        o.unless_option = true;
        k = k.substr(1, k.size() - 2);
      }
      char q = k.empty() ? 0 : k.back();
      o.min = 1;
      o.max = 1;
      if (q == '?' || q == '*' || q == '+') {
        k.pop_back();
        o.min = q == '+' ? 1 : 0;
        o.max = q == '?' ? 1 : OperandSpec::kMany;
      }
      if (!parse_arg_kind(k, o.kind, &o.choices))
        return fmt::format("unknown operand kind `{}`", k);
      s.operands.push_back(o);
    }
    return std::nullopt;
  }

  // `[!|%] NAME[, NAME...] [ARG | =ARG | [=ARG] | [ARG]] [needs N,...] [global] [patterns]
  //  [: reason]`
  static std::optional<std::string> option_line(ProgramSpec& s, const std::string& l) {
    OptionSpec o;
    std::string_view body = l;
    if (body[0] == '!' || body[0] == '%') {
      o.verdict = body[0] == '!' ? OptionVerdict::kRefused : OptionVerdict::kSandboxOnly;
      body.remove_prefix(1);
    }
    auto [spec, why] = split_reason(body);
    o.why = why;
    if (o.verdict != OptionVerdict::kReadOnly && o.why.empty())
      return std::string("a refused or sandbox-only option needs `: what it does`");
    auto w = words_of(spec);
    size_t i = 0;
    auto set_arg = [&](std::string a) -> std::optional<std::string> {
      bool opt = false;
      if (a.size() > 2 && a.front() == '[' && a.back() == ']') {
        opt = true;
        a = a.substr(1, a.size() - 2);
      }
      if (!a.empty() && a[0] == '=') a = a.substr(1);
      ArgKind k;
      std::vector<std::string> choices;
      if (!parse_arg_kind(a, k, &choices)) return fmt::format("unknown argument kind `{}`", a);
      o.choices = std::move(choices);
      if (o.arg != ArgKind::kNone && (o.arg != k || o.arg_optional != opt))
        return std::string("two different argument kinds for one option");
      o.arg = k;
      o.arg_optional = opt;
      return std::nullopt;
    };
    for (; i < w.size(); ++i) {
      std::string n = w[i];
      // `--key=KEYDEF` or `--color[=WHEN]` as --help prints them.
      size_t at = n.find_first_of("=[");
      if (at != std::string::npos && at > 1 && n[0] == '-') {
        if (auto err = set_arg(n.substr(at))) return err;
        n = n.substr(0, at);
      }
      if (!is_option_name(n)) break;
      o.names.push_back(n);
    }
    if (o.names.empty()) return fmt::format("`{}` is not an option line", l);
    for (; i < w.size(); ++i) {
      const std::string& a = w[i];
      if (a == "global") {
        o.global = true;
      } else if (a == "patterns") {
        o.operands_free = true;
      } else if (a == "needs") {
        for (++i; i < w.size() && is_option_name(w[i]); ++i) o.needs.push_back(w[i]);
        --i;
        if (o.needs.empty()) return std::string("`needs` names no option");
      } else if (auto err = set_arg(a)) {
        return err;
      }
    }
    s.options.push_back(std::move(o));
    return std::nullopt;
  }

  std::optional<std::string> finish() {
    if (!cur_) return std::nullopt;
    ProgramSpec& s = *cur_;
    if (s.names.size() == 1 && s.names[0].size() == 1 && starts_with(s.names[0][0], "@")) {
      sets_.push_back(std::move(s));
    } else {
      out_.push_back(std::move(s));
    }
    cur_.reset();
    return std::nullopt;
  }

  // `use:` lines take their option sets in; then each table is checked.
  std::optional<std::string> resolve() {
    for (auto& s : out_) {
      auto where = [&](const std::string& m) {
        return fmt::format("[{}] (line {}): {}", s.display_name(), s.line, m);
      };
      for (const auto& u : s.uses) {
        const ProgramSpec* set = nullptr;
        for (const auto& x : sets_)
          if (x.names[0][0] == u) set = &x;
        if (!set && more_sets_)
          for (const auto& x : *more_sets_)
            if (x.names[0][0] == u) set = &x;
        if (!set) return where("`use: " + u + "` names no option set of this file");
        s.options.insert(s.options.end(), set->options.begin(), set->options.end());
      }
      // Each name once; each `needs`/`requires` names an option of this entry.
      std::vector<std::string> seen;
      for (const auto& o : s.options)
        for (const auto& n : o.names) {
          for (const auto& x : seen)
            if (x == n) return where("the option " + n + " is listed twice");
          seen.push_back(n);
        }
      auto known = [&](const std::string& n) {
        for (const auto& x : seen)
          if (x == n) return true;
        return false;
      };
      for (const auto& o : s.options)
        for (const auto& n : o.needs)
          if (!known(n)) return where("`needs " + n + "` names no option of this entry");
      for (const auto& n : s.requires_any)
        if (!known(n)) return where("`requires: " + n + "` names no option of this entry");
      if (s.examples.empty()) return where("no `ok:` example");
      s.index_options();
    }
    return std::nullopt;
  }

  std::string_view file_, text_;
  int line_ = 0;
  std::optional<ProgramSpec> cur_;
  std::vector<ProgramSpec> out_;
  std::vector<ProgramSpec> sets_;  // [@name]: option sets for `use:`
  const std::vector<ProgramSpec>* more_sets_ = nullptr;
};

}  // namespace

bool parse_arg_kind(std::string_view word, ArgKind& out, std::vector<std::string>* choices) {
  if (word.size() > 2 && word.front() == '{' && word.back() == '}') {
    std::vector<std::string> c = split(word.substr(1, word.size() - 2), '|');
    for (const auto& x : c)
      if (x.empty()) return false;
    out = ArgKind::kChoice;
    if (choices) *choices = std::move(c);
    return true;
  }
  for (const auto& k : kKinds)
    if (word == k.name) {
      out = k.kind;
      return true;
    }
  return false;
}

const char* to_string(ArgKind k) {
  if (k == ArgKind::kChoice) return "CHOICE";
  for (const auto& n : kKinds)
    if (n.kind == k) return n.name;
  return "none";
}

std::string OptionSpec::display() const {
  std::string out;
  for (const auto& n : names) {
    if (!out.empty()) out += '/';
    out += n[0] == '~' ? n.substr(1) : n;
  }
  return out;
}

std::string ProgramSpec::display_name() const {
  return names.empty() ? std::string() : join(names[0], " ");
}

void ProgramSpec::index_options() {
  index.clear();
  for (size_t i = 0; i < options.size(); ++i)
    for (const auto& n : options[i].names) index.emplace(n, i);
}

const OptionSpec* ProgramSpec::find(std::string_view name, bool* ambiguous) const {
  if (ambiguous) *ambiguous = false;
  if (!index.empty()) {
    auto it = index.find(std::string(name));
    if (it != index.end()) return &options[it->second];
  } else {
    for (const auto& o : options)
      for (const auto& n : o.names)
        if (n == name) return &o;
  }
  if (!abbrev || !starts_with(name, "--") || name.size() < 3) return nullptr;
  const OptionSpec* hit = nullptr;
  for (const auto& o : options)
    for (const auto& n : o.names) {
      if (!starts_with(n, "--") || !starts_with(n, name)) continue;
      if (hit && hit != &o) {
        if (ambiguous) *ambiguous = true;
        return nullptr;
      }
      hit = &o;
    }
  return hit;
}

Result<std::vector<ProgramSpec>> parse_program_specs(std::string_view file, std::string_view text) {
  return SpecParser(file, text).run();
}

Result<std::vector<std::vector<std::string>>> parse_table_header(std::string_view line) {
  if (line.size() < 2 || line.front() != '[' || line.back() != ']')
    return make_error(ErrorKind::kConfig, "a header is `[program words | ...]`");
  std::vector<std::vector<std::string>> names;
  for (const auto& alt : split(line.substr(1, line.size() - 2), '|')) {
    auto w = words_of(alt);
    if (w.empty()) return make_error(ErrorKind::kConfig, "an empty name in the header");
    names.push_back(std::move(w));
  }
  return names;
}

Result<ProgramSpec> parse_program_section(std::string_view file, std::string_view text,
                                          int first_line, const std::vector<ProgramSpec>& sets) {
  return SpecParser(file, text, first_line, &sets).run_section();
}

Result<std::vector<std::vector<std::string>>> parse_exact_entries(std::string_view file,
                                                                  std::string_view text) {
  std::vector<std::vector<std::string>> out;
  int line = 0;
  for (const auto& raw : split(text, '\n')) {
    ++line;
    std::string l = trim(raw);
    size_t hash = l.find(" #");
    if (hash != std::string::npos) l = trim(std::string_view(l).substr(0, hash));
    if (l.empty() || l[0] == '#') continue;
    auto w = words_of(l);
    if (w.size() < 2)
      return make_error(ErrorKind::kConfig,
                        fmt::format("{}:{}: an exact entry is a program and its "
                                    "arguments",
                                    file, line));
    out.push_back(std::move(w));
  }
  return out;
}

}  // namespace cordon
