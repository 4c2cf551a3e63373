#include "session/command_policy.h"

#include <fmt/format.h>

#include "core/trace.h"
#include "host/glob_expander.h"
#include "host/path_resolver.h"

namespace cordon {

CommandPolicy::CommandPolicy(const Policy& policy, std::string home, std::string project)
    : policy_(policy), home_(std::move(home)), project_(std::move(project)) {}

void CommandPolicy::make_locked() {
  if (classifier_ || error_) return;
  auto c = CommandClassifier::create(policy_.commands);
  trace("session: command classifier made");
  if (c.ok())
    classifier_.emplace(std::move(*c));
  else
    error_ =
        make_error(ErrorKind::kUnavailable,
                   fmt::format("{}: {} Commands are refused until the config is fixed.",  // CFG-2
                               policy_.source_file, c.error().message));
}

Result<Classification> CommandPolicy::classify(const std::vector<std::string>& argv,
                                               const std::optional<std::string>& script,
                                               const std::string& cwd, bool network) {
  const CommandClassifier* classifier;
  {
    std::lock_guard<std::mutex> lock(mu_);
    make_locked();
    if (error_) return *error_;
    classifier = &*classifier_;
  }
  ClassifyContext cc;
  cc.cwd = cwd;
  cc.home = home_;
  cc.network = network;
  cc.resolve = host_path_resolver();
  cc.expander = host_expander();
  cc.project = project_;
  // Without a sandbox other processes' environments are in reach (CMD-3, issue 27).
  cc.unconfined = policy_.mode != SandboxMode::kOn;
  return script ? classifier->classify_line(*script, cc) : classifier->classify_argv(argv, cc);
}

Result<CommandVerdict> CommandPolicy::verdict(const std::vector<std::string>& argv,
                                              const std::optional<std::string>& script,
                                              const std::string& cwd, bool network) {
  auto c = classify(argv, script, cwd, network);
  if (!c.ok()) return c.error();
  CommandVerdict v;
  v.cls = c->cls == CommandClass::kDenied     ? CommandVerdict::kDenied
          : c->cls == CommandClass::kReadOnly ? CommandVerdict::kReadOnly
                                              : CommandVerdict::kNeedsApproval;
  v.reason = c->reason;
  return v;
}

}  // namespace cordon
