// `cordon run --session S --background -- CMD` (issue 30): hands the command to the session's
// keeper (started when none runs) as `exec` with "background": true and prints the job id.
#include <fmt/format.h>

#include <cstdio>

#include "cli/commands.h"
#include "cli/keeper_target.h"
#include "core/strings.h"

namespace cordon {

namespace {

nlohmann::json exec_params(const api::ExecRequest& req) {
  nlohmann::json p{{"background", true}, {"cwd", req.cwd}};
  if (req.command)
    p["command"] = *req.command;
  else
    p["argv"] = req.argv;
  if (req.network) p["network"] = true;
  if (req.outside_sandbox) p["outside_sandbox"] = true;
  if (req.timeout) p["timeout_ms"] = req.timeout->count();
  return p;
}

// What cannot go with --background, said before anything starts; "" when all is well.
std::string background_problem(const RunArgs& args, const KeeperTarget& t) {
  if (t.session.empty())
    return "--background needs a session: --session ID or CORDON_SESSION (`cordon session "
           "start` prints an id).";
  if (args.allow_command)
    return "--allow-command cannot approve a background job; run the command in the "
           "foreground.";
  return "";
}

}  // namespace

int cmd_run_background(const CliContext& ctx, const RunArgs& args, const api::ExecRequest& req) {
  KeeperTarget t = keeper_target(ctx, args.session, args.project);
  if (std::string why = background_problem(args, t); !why.empty()) {
    print_error(why);
    return kExitRefused;
  }
  auto keeper = KeeperClient::connect(t, /*start=*/true);
  if (!keeper.ok()) {
    print_error(keeper.error().message);
    return kExitRefused;
  }
  for (const auto& n : (*keeper)->notices()) print_error(n);
  auto r = (*keeper)->call("exec", exec_params(req));
  if (!r.ok()) {
    print_error(r.error().message);
    return kExitRefused;
  }
  std::printf("%s\n", printable(r->value("job", std::string())).c_str());
  return 0;
}

}  // namespace cordon
