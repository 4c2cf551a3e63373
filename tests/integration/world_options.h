// The library tests' API options for a test World: its project as the project and working
// folder, this build's cordon (the probe's checker), the world's environment and `extra_env`.
#pragma once

#include <string>
#include <vector>

#include "cordon/cordon.h"
#include "harness.h"

namespace cordon::it {

inline api::Options world_options(const World& w, const std::vector<std::string>& extra_env = {},
                                  api::Asker* asker = nullptr) {
  api::Options o;
  o.project = w.project();
  o.cwd = w.project();
  o.asker = asker;
  o.cordon_binary = cordon_binary();
  std::vector<std::string> env;
  for (const auto& [k, v] : w.env) env.push_back(k + "=" + v);
  env.insert(env.end(), extra_env.begin(), extra_env.end());
  o.environment = std::move(env);
  return o;
}

}  // namespace cordon::it
