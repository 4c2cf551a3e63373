#include "core/env.h"

namespace cordon {

EnvMap EnvMap::from_environ(char** envp) {
  EnvMap m;
  for (char** e = envp; e && *e; ++e) {
    std::string_view kv(*e);
    size_t eq = kv.find('=');
    if (eq == std::string_view::npos || eq == 0) continue;
    m.vars.emplace_back(std::string(kv.substr(0, eq)), std::string(kv.substr(eq + 1)));
  }
  return m;
}

std::optional<std::string> EnvMap::get(std::string_view name) const {
  for (const auto& [k, v] : vars)
    if (k == name) return v;
  return std::nullopt;
}

std::string EnvMap::value(std::string_view name) const { return get(name).value_or(""); }

void EnvMap::set(std::string name, std::string v) {
  for (auto& [k, val] : vars) {
    if (k == name) {
      val = std::move(v);
      return;
    }
  }
  vars.emplace_back(std::move(name), std::move(v));
}

void EnvMap::unset(std::string_view name) {
  std::erase_if(vars, [&](const auto& kv) { return kv.first == name; });
}

std::vector<std::string> EnvMap::to_strings() const {
  std::vector<std::string> out;
  out.reserve(vars.size());
  for (const auto& [k, v] : vars) out.push_back(k + "=" + v);
  return out;
}

}  // namespace cordon
