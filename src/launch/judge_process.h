// Runs the [approvals] judge program of mode "auto" (APR-2): the request as JSON on its stdin,
// its answer read from stdout. Anything wrong (not found, a crash, a timeout, garbage) is a
// failed verdict, which the approver treats as "ask".
#pragma once

#include <chrono>
#include <string>

#include "approval/judge.h"
#include "core/env.h"

namespace cordon {

inline constexpr std::chrono::milliseconds kJudgeTimeout{30'000};

class JudgeProcess : public Judge {
 public:
  // `program` is [approvals] judge as written: an absolute path, `~/...` (with HOME from
  // `env`) or a name looked up on PATH of `env`. `env` is the judge's whole environment: it is
  // the user's own program, so faces pass cordon's environment. `cwd` empty stays where cordon
  // is.
  //   JudgeProcess judge(policy.approvals.judge, EnvMap::from_environ(environ));
  //   JudgeVerdict v = judge.judge({AskKind::kNetwork, "npm install", {}, ""});
  JudgeProcess(std::string program, EnvMap env, std::chrono::milliseconds timeout = kJudgeTimeout,
               std::string cwd = "");

  // Runs the program once; thread-safe (each call is its own process). SIGPIPE from a judge
  // that exits without reading its input is swallowed on this thread, whatever the process's
  // signal disposition.
  JudgeVerdict judge(const ApprovalRequest& request) override;

 private:
  std::string program_;
  EnvMap env_;
  std::chrono::milliseconds timeout_;
  std::string cwd_;
};

}  // namespace cordon
