#include <cstdio>
#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "commands/classify.h"
#include "host/facts_reader.h"
#include "host/glob_expander.h"
#include "host/path_resolver.h"

namespace cordon {

int cmd_classify(const CliContext& ctx, const ClassifyArgs& args) {
  if (args.script && !args.command.empty()) {
    print_error("give either a command after -- or a line with -c, not both.");
    return kExitRefused;
  }
  if (!args.script && args.command.empty()) {
    print_error("nothing to classify: give a command after -- or a line with -c.");
    return kExitRefused;
  }
  auto policy = load_policy(ctx);
  if (!policy.ok()) {
    print_error(policy.error().message);
    return kExitRefused;
  }
  for (const auto& w : policy->warnings) print_error("warning: " + w);
  auto classifier = CommandClassifier::create(policy->commands);
  if (!classifier.ok()) {
    print_error(policy->source_file + ": " + classifier.error().message);
    return kExitRefused;
  }
  ClassifyContext cc;
  cc.cwd = ctx.cwd;
  cc.home = ctx.home;
  cc.network = args.network;
  cc.resolve = host_path_resolver();
  cc.expander = host_expander();
  cc.project = find_project_root(ctx.cwd);
  // Without a sandbox other processes' environments are in reach (CMD-3, issue 27).
  cc.unconfined = policy->mode != SandboxMode::kOn;
  Classification c = args.script ? classifier->classify_line(*args.script, cc)
                                 : classifier->classify_argv(args.command, cc);
  if (args.json) {
    nlohmann::json j{
        {"class", to_string(c.cls)}, {"reason", c.reason}, {"word", c.word}, {"rule", c.rule}};
    // A command line may hold any bytes; replace what is not UTF-8 rather than fail.
    std::string out = j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    std::printf("%s\n", out.c_str());
  } else {
    std::printf("%s\n%s\n", to_string(c.cls), c.reason.c_str());
  }
  // The class is the answer, whatever it is.
  return 0;
}

}  // namespace cordon
