// The environment as an ordered list of NAME=value pairs.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace cordon {

struct EnvMap {
  std::vector<std::pair<std::string, std::string>> vars;

  static EnvMap from_environ(char** envp);
  std::optional<std::string> get(std::string_view name) const;
  // Value or "" when unset.
  std::string value(std::string_view name) const;
  void set(std::string name, std::string value);
  void unset(std::string_view name);
  // "NAME=value" strings, for execve.
  std::vector<std::string> to_strings() const;
};

}  // namespace cordon
