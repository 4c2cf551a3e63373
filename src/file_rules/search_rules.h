// The search tool's pure half: the pattern, which folders it skips, and matching in a text.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "cordon/cordon.h"
#include "core/result.h"

namespace re2 {
class RE2;
}

namespace cordon {

// A compiled search pattern. RE2 syntax (the syntax of ripgrep and Go: `\d`, `(?i)`, `\b`,
// non-greedy `*?`; no backreferences, no look-around), matched in time linear in the text, so
// no pattern and no line length can stall or crash the search. A fixed string matches itself.
class LineMatcher {
 public:
  // Error code "invalid" with RE2's reason when the pattern does not compile, or is empty.
  static Result<std::shared_ptr<const LineMatcher>> compile(std::string_view pattern,
                                                            bool fixed_string, bool ignore_case);
  ~LineMatcher();
  LineMatcher(const LineMatcher&) = delete;
  LineMatcher& operator=(const LineMatcher&) = delete;

  // True when the line (without its line end) holds a match.
  bool matches(std::string_view line) const;

  // Where the next line that may match begins, searching `text` from `from` (a line start):
  // the start of the first line at or after `from` that holds a match of the whole-text form of
  // the pattern, or npos when none does. Every line that matches() is found this way; a line
  // found may still not match (a "\r" at its end), so callers confirm with matches().
  size_t next_candidate(std::string_view text, size_t from) const;

 private:
  LineMatcher() = default;
  std::unique_ptr<re2::RE2> re_;
  // The pattern in multi-line form that never matches "\n", to skip over lines that cannot
  // match in one pass; null when the pattern has `$`, `\A` or `\z`, whose meaning at a line's
  // end differs between the forms.
  std::unique_ptr<re2::RE2> whole_;
};

// Folders search never walks into (it still searches one when it is the path asked for):
// version control, dependency stores, caches and virtual environments. Names, not paths.
bool is_heavy_folder(std::string_view name);
// Marks a cache folder by the Cache Directory Tagging convention (cargo's target/ has it).
inline constexpr std::string_view kCacheTagFile = "CACHEDIR.TAG";

// The public API's (cordon/cordon.h): path project-relative when inside the project, else
// absolute; line 1-based; text without its line end, valid UTF-8, clipped to kMaxMatchText.
using SearchMatch = api::SearchMatch;
inline constexpr size_t kMaxMatchText = 500;  // bytes of a matched line that search returns

// Appends the matching lines of `text` to `out` until `out` holds `cap` matches; returns how
// many it appended. A trailing '\r' is not part of a line.
size_t match_lines(const LineMatcher& m, std::string_view text, const std::string& shown_path,
                   size_t cap, std::vector<SearchMatch>& out);

}  // namespace cordon
