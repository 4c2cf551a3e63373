// A `[commands] read_only` or `denied` entry of the config (CMD-1, CFG-2): its words and its
// check. In the config layer, so the config file is checked where it is read; the classifier
// (commands/classify.h) builds its lists from the same words.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cordon {

// The words of an entry, split on blanks.
std::vector<std::string> entry_words(std::string_view s);

// Checks one `[commands] read_only` or `denied` entry: one to three words, no quotes, no shell
// operators, a program name rather than a path. A denied entry's program may hold `*` and `?`
// ("mkfs*"). Returns a message for a person when it is malformed.
std::optional<std::string> check_command_entry(std::string_view entry, bool denied);

}  // namespace cordon
