// The session's command policy (CMD-4, CMD-6): the classifier of `[commands]`, made once per
// session, at its first command's check (while that command's bwrap sets up, PERF-1), and
// its verdict in the words the exec gate needs (approval/exec_gate.h).
//
//   CommandPolicy cp(policy, home, project);
//   auto v = cp.verdict({"rm", "-rf", "/"}, std::nullopt, "/p", false);  // kDenied
#pragma once

#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "approval/exec_gate.h"
#include "commands/classify.h"
#include "config/policy.h"
#include "core/result.h"

namespace cordon {

class CommandPolicy {
 public:
  CommandPolicy(const Policy& policy, std::string home, std::string project);
  CommandPolicy(const CommandPolicy&) = delete;
  CommandPolicy& operator=(const CommandPolicy&) = delete;

  // The command (`script` read by a shell, else `argv`) as it would run in `cwd`. Fails
  // ("unavailable") while the config's `[commands]` is broken (CFG-2).
  Result<Classification> classify(const std::vector<std::string>& argv,
                                  const std::optional<std::string>& script, const std::string& cwd,
                                  bool network);
  Result<CommandVerdict> verdict(const std::vector<std::string>& argv,
                                 const std::optional<std::string>& script, const std::string& cwd,
                                 bool network);

 private:
  void make_locked();  // mu_ held

  const Policy& policy_;
  std::string home_, project_;
  std::mutex mu_;
  std::optional<CommandClassifier> classifier_;
  std::optional<Error> error_;
};

}  // namespace cordon
