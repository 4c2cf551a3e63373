// A session (SES-1): one stretch of work on one project, and the place where a command goes
// through facts -> plan -> launch -> aftercare.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "backend/linux/launcher.h"
#include "backend/linux/probe.h"
#include "config/folders.h"
#include "config/policy.h"
#include "core/env.h"
#include "core/result.h"
#include "plan/facts.h"
#include "plan/plan.h"
#include "plan/request.h"
#include "session/command_result.h"

namespace cordon {

struct SessionOptions {
  Policy policy;
  Folders folders;
  EnvMap env;                 // cordon's own environment
  std::string home;
  std::string cwd;            // real working folder of the caller
  std::string project;        // explicit project root (--project), else found from cwd
  std::string id;             // explicit session id, else a new one
  bool ephemeral = true;      // removed (with its /tmp) when the Session object goes
  std::string cordon_exe;     // this program, for the probe's checker
  bool use_probe_cache = true;
  // Called with each start notice as soon as it is known (before the command runs); the
  // notices are in the result as well.
  std::function<void(const std::string&)> on_notice;
};

class Session {
 public:
  static Result<std::unique_ptr<Session>> open(SessionOptions opts);
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  const std::string& id() const { return id_; }
  const std::string& project() const { return project_; }
  const std::string& tmp() const { return tmp_; }
  const Policy& policy() const { return opts_.policy; }

  // Facts and plan for a request, without running anything (cordon policy, tests).
  Facts facts(const Request& req) const;
  Plan plan(const Request& req, const Facts& facts) const;
  // The probe, run once per session (and cached per boot).
  const ProbeReport& probe();

  // Runs one command: plan, probe when sandboxed, launch, aftercare, notes.
  CommandResult run(const Request& req, const LaunchIo& io);

 private:
  explicit Session(SessionOptions opts) : opts_(std::move(opts)) {}
  Status prepare();

  // PROT-7: planted paths that could not be moved aside (kept per project in the state
  // folder), still present.
  std::vector<std::string> pending_quarantine() const;
  void remember_failed_moves(const std::vector<std::string>& failed);

  SessionOptions opts_;
  std::vector<std::string> unreadable_;  // FS-10: folders made unreadable in this session
  std::string id_, project_, tmp_, empty_file_, empty_dir_;
  std::optional<ProbeReport> probe_;
  bool first_command_ = true;
};

}  // namespace cordon
