#include <cstdio>
#include <ctime>

#include <fmt/format.h>

#include "cli/commands.h"
#include "core/paths.h"
#include "core/strings.h"
#include "plan/planner.h"
#include "server/keeper_client.h"
#include "session/session.h"
#include "sys/fs_util.h"

namespace cordon {

namespace {

Result<std::unique_ptr<Session>> open_session(const CliContext& ctx, const Policy& policy,
                                              const std::string& project, const std::string& id,
                                              bool create) {
  SessionOptions so;
  so.policy = policy;
  so.folders = ctx.folders;
  so.env = ctx.env;
  so.home = ctx.home;
  so.cwd = ctx.cwd;
  so.project = project;
  so.id = id;
  so.create = create;
  so.cordon_exe = ctx.exe;
  return Session::open(std::move(so));
}

std::string when(long long t) {
  char buf[64];
  std::time_t tt = static_cast<std::time_t>(t);
  std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S", std::localtime(&tt));
  return buf;
}

}  // namespace

int cmd_session(const CliContext& ctx, const SessionArgs& args) {
  auto policy = load_policy(ctx);
  if (!policy.ok()) {
    print_error(policy.error().message);
    return kExitRefused;
  }
  SessionStore store(ctx.folders);
  if (args.action == "list") {
    auto list = store.list();
    if (!list.ok()) {
      print_error(list.error().message);
      return 1;
    }
    if (list->empty()) std::printf("no sessions\n");
    for (const auto& r : *list) {
      size_t leftovers = store.leftover_files(r.id).size();
      std::printf("%-18s %s  %s%s%s\n", r.id.c_str(), when(r.started).c_str(), r.project.c_str(),
                  leftovers ? fmt::format("  ({} leftover records: run `cordon session resume "
                                          "{}`)",
                                          leftovers, r.id)
                                  .c_str()
                            : "",
                  r.held.empty() ? "" : "  (held)");
    }
    return 0;
  }
  if (args.action == "start") {
    std::string id = args.id.empty() ? random_hex16() : args.id;
    auto loaded = store.load(id);
    if (loaded.ok() && loaded->has_value()) {
      print_error(fmt::format("session {} exists already; resume it with `cordon session resume "
                              "{}`.",
                              id, id));
      return 1;
    }
    auto s = open_session(ctx, *policy, args.project, id, true);
    if (!s.ok()) {
      print_error(s.error().message);
      return kExitRefused;
    }
    // The start notice: what this session's commands will and will not have.
    Request req;
    req.argv = {"true"};
    Facts f = (*s)->facts(req);
    Plan p = (*s)->plan(req, f);
    std::printf("%s\n", (*s)->id().c_str());
    print_error(fmt::format("session {} started for {} (mode {}).", (*s)->id(), (*s)->project(),
                            to_string(policy->mode)));
    for (const auto& n : p.notices) print_error(n);
    if (!p.stripped.empty() && policy->mode != SandboxMode::kExternal)
      print_error("these variables are not available to commands: " +  // ENV-4
                  join(p.stripped, ", ") + ".");
    if (p.refusal) print_error("note: sandboxed commands are refused now: " + p.refusal->message);
    return 0;
  }
  if (args.id.empty()) {
    print_error("name the session: cordon session " + args.action + " ID");
    return kExitRefused;
  }
  auto s = open_session(ctx, *policy, args.project, args.id, false);
  if (!s.ok()) {
    print_error(s.error().message);
    return kExitRefused;
  }
  if (args.action == "end") {
    // Issue 30: the keeper's jobs end first (their trees, their aftercare), then the session.
    if (auto st = stop_keeper(ctx.folders, args.id); !st.ok()) {
      print_error(st.error().message);
      return 1;
    }
    if (auto st = (*s)->end(); !st.ok()) {
      print_error(st.error().message);
      return 1;
    }
    std::printf("session %s ended; its private /tmp was removed\n", args.id.c_str());
    return 0;
  }
  if (args.action == "resume") {
    ResumeReport rep = (*s)->resume();
    for (const auto& n : rep.notes) print_error("note: " + n);
    if (rep.hold) {
      print_error(rep.hold->message);
      return kExitRefused;
    }
    std::printf("session %s resumed for %s\n", args.id.c_str(), (*s)->project().c_str());
    return 0;
  }
  print_error("unknown session action " + args.action);
  return kExitRefused;
}

}  // namespace cordon
