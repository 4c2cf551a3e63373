// Edits a JSON settings file as text, so that everything cordon does not add stays byte for
// byte as the user wrote it: comments, trailing commas (JSONC, as VS Code and Zed allow), key
// order, indentation. An edit is a list of insertions; nothing is ever removed or replaced.
#pragma once

#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cordon {

struct Insertion {
  size_t offset = 0;  // in the original text
  std::string text;
};

// What one change needs: the insertions (empty when the value is there already), or why not.
struct TextEdit {
  std::vector<Insertion> insertions;
  std::string problem;  // non-empty: nothing can be done without overwriting the user's value
};

// Adds `value` at the object path `keys` (creating the objects on the way). Already there and
// equal: nothing to do. Already there and different, or a key on the way is not an object:
// a problem naming the key (cordon never overwrites it). `same`, when given, says whether the
// value there means the same as `value` (a client writes its own spelling back, DIST-4).
TextEdit json_add_member(
    std::string_view text, const std::vector<std::string>& keys, const nlohmann::json& value,
    const std::function<bool(const nlohmann::json& there)>& same = nullptr);

// Adds the string `item` to the array at `keys` (creating it and the objects on the way) unless
// it holds it already.
TextEdit json_add_to_array(std::string_view text, const std::vector<std::string>& keys,
                           const std::string& item);

// The text with the insertions made (offsets into the original, in any order).
std::string apply_insertions(std::string_view text, std::vector<Insertion> insertions);

// 1-based line of an offset, for messages and --print.
size_t line_of(std::string_view text, size_t offset);

}  // namespace cordon
