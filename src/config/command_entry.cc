#include "config/command_entry.h"

#include <fmt/format.h>

namespace cordon {

std::vector<std::string> entry_words(std::string_view s) {
  std::vector<std::string> out;
  size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && (s[i] == ' ' || s[i] == '\t')) ++i;
    size_t j = i;
    while (j < s.size() && s[j] != ' ' && s[j] != '\t') ++j;
    if (j > i) out.emplace_back(s.substr(i, j - i));
    i = j;
  }
  return out;
}

std::optional<std::string> check_command_entry(std::string_view entry, bool denied) {
  auto words = entry_words(entry);
  if (words.empty()) return std::string("an entry is empty");
  for (const auto& w : words)
    if (w.find_first_of("'\"`$;&|<>()\\\n") != std::string::npos)
      return fmt::format(
          "\"{}\" holds shell syntax; write the words as a command would see "
          "them",
          entry);
  if (words.size() > 3)
    return fmt::format(
        "\"{}\" has more than three words: an entry is `program`, "
        "`program arg` or `program arg arg`",
        entry);
  if (words[0].find('/') != std::string::npos)
    return fmt::format("\"{}\" names a path; name the program (\"{}\")", entry,
                       words[0].substr(words[0].rfind('/') + 1));
  if (!denied && words[0].find_first_of("*?") != std::string::npos)
    return fmt::format("\"{}\": a read-only entry cannot hold `*` or `?` in its program", entry);
  return std::nullopt;
}

}  // namespace cordon
