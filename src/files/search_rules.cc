#include "files/search_rules.h"

#include <re2/re2.h>

#include <array>

#include <fmt/format.h>

#include "files/text_rules.h"

namespace cordon {

Result<std::shared_ptr<const LineMatcher>> LineMatcher::compile(std::string_view pattern,
                                                                bool fixed_string,
                                                                bool ignore_case) {
  if (pattern.empty()) return make_error("invalid", "search: the pattern is empty");
  RE2::Options opt;
  opt.set_log_errors(false);
  opt.set_literal(fixed_string);
  opt.set_case_sensitive(!ignore_case);
  opt.set_encoding(RE2::Options::EncodingUTF8);
  auto re = std::make_unique<RE2>(re2::StringPiece(pattern.data(), pattern.size()), opt);
  if (!re->ok())
    return make_error("invalid", fmt::format("search: the pattern does not compile ({}); it is "
                                             "an RE2 regular expression, or set fixed_string "
                                             "to search for the text as written",
                                             re->error()));
  std::shared_ptr<LineMatcher> m(new LineMatcher());
  m->re_ = std::move(re);
  return std::shared_ptr<const LineMatcher>(std::move(m));
}

LineMatcher::~LineMatcher() = default;

bool LineMatcher::matches(std::string_view line) const {
  return RE2::PartialMatch(re2::StringPiece(line.data(), line.size()), *re_);
}

bool is_heavy_folder(std::string_view name) {
  static constexpr std::array<std::string_view, 20> kHeavy = {
      ".git",          ".hg",         ".svn",        ".jj",           "node_modules",
      "bower_components", "__pycache__", ".venv",    "venv",          "site-packages",
      ".tox",          ".nox",        ".mypy_cache", ".pytest_cache", ".ruff_cache",
      ".gradle",       ".next",       ".nuxt",       ".terraform",    ".direnv",
  };
  for (auto h : kHeavy)
    if (name == h) return true;
  return false;
}

size_t match_lines(const LineMatcher& m, std::string_view text, const std::string& shown_path,
                   size_t cap, std::vector<SearchMatch>& out) {
  size_t added = 0;
  size_t pos = 0;
  size_t line_no = 0;
  while (pos < text.size() && out.size() < cap) {
    size_t nl = text.find('\n', pos);
    size_t end = nl == std::string_view::npos ? text.size() : nl;
    std::string_view line = text.substr(pos, end - pos);
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (m.matches(line)) {
      SearchMatch hit;
      hit.path = shown_path;
      hit.line = line_no;
      hit.text = std::string(utf8_prefix(line, kMaxMatchText));
      make_valid_utf8(hit.text);
      out.push_back(std::move(hit));
      ++added;
    }
    pos = end + 1;
  }
  return added;
}

}  // namespace cordon
