// What a shell would act on (CMD-4): brace expansion (pure, here) and pathname expansion
// against the filesystem (through an Expander, so the classifier stays pure: the real one is
// host/glob_expander.h, a unit test passes a fake).
//
//   brace_expand("/{etc,usr}/x", 100);   // {"/etc/x", "/usr/x"}
//   brace_expand("a{1..3}", 100);        // {"a1", "a2", "a3"}
//   brace_expand("{1..100000}", 100);    // nullopt: more than the limit
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cordon {

// Every word `{a,b}` and `{x..y[..step]}` make of `word`, in order; a word without braces is
// itself. nullopt when there would be more than `limit` words.
std::optional<std::vector<std::string>> brace_expand(std::string_view word, size_t limit);

class Expander {
 public:
  virtual ~Expander() = default;

  struct Matches {
    std::vector<std::string> paths;  // absolute, as the shell would give them, sorted
    // False when the expansion could not be done in full: more than `limit` matches, a folder
    // on the way that cannot be read, too many entries to look at.
    bool complete = true;
  };

  // Pathname expansion of `pattern`: absolute and normalized (no `.`, `..` or `//`), each
  // component may hold `*`, `?` and `[...]`. A trailing `/` matches folders only and is kept
  // on the matches. No match at all: empty `paths`, complete (the shell then keeps the word).
  virtual Matches glob(const std::string& pattern, size_t limit) const = 0;
};

}  // namespace cordon
