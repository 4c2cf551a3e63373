// cordon's command line: a thin face over the library.
#include <sys/prctl.h>

#include <cstdio>
#include <cstring>

#include <CLI/CLI.hpp>

#include "backend/linux/probe.h"
#include "cli/commands.h"
#include "core/version.h"

extern char** environ;

int main(int argc, char** argv) {
  using namespace cordon;
  if (argc >= 2 && std::strcmp(argv[1], "__probe-inside") == 0) return probe_inside_main(argc, argv);
  // Orphans of our commands come back to us, so we can reap a sandbox's pid 1 ourselves.
  prctl(PR_SET_CHILD_SUBREAPER, 1);

  CLI::App app{"cordon: run the commands of an AI coding agent in a sandbox drawn around one "
               "project.",
               "cordon"};
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string("cordon ") + kCordonVersion);

  RunArgs run_args;
  std::string script;
  auto* run = app.add_subcommand(
      "run",
      "Run one command in the sandbox.\n"
      "  cordon run -- make test\n"
      "  cordon run -c 'npm ci && npm test'\n"
      "  cordon run --network -- npm install      (the internet, project secrets hidden)\n"
      "  cordon run --outside-sandbox -- docker ps (unconfined, credentials still stripped)");
  run->add_option("--project", run_args.project,
                  "project root (default: the git top-level of the working folder, else the "
                  "working folder)");
  run->add_option("--session", run_args.session,
                  "run in this session (keeps its /tmp between commands); also CORDON_SESSION");
  run->add_flag("--network", run_args.network,
                "approve the machine's network for this command (project credential files "
                "are hidden)");
  run->add_flag("--outside-sandbox", run_args.outside_sandbox,
                "approve running this command unconfined (the environment is still stripped)");
  run->add_option("--timeout", run_args.timeout,
                  "end the whole command after this long (30s, 5m, 1h): exit status 124");
  run->add_option("-c", script, "a shell script to run instead of a command");
  run->add_option("command", run_args.command, "the command and its arguments, after --");
  run->prefix_command();

  bool probe_json = false;
  auto* probe = app.add_subcommand(
      "probe", "Check that the sandbox holds on this machine: one line per check.");
  probe->add_flag("--json", probe_json, "print the checks as JSON");

  PolicyArgs policy_args;
  auto* policy = app.add_subcommand(
      "policy", "Print the policy resolved for the current project (CFG-6).");
  policy->add_option("--project", policy_args.project, "project root");
  policy->add_flag("--json", policy_args.json, "stable machine-readable form");
  policy->add_flag("--seatbelt", policy_args.seatbelt,
                   "print the macOS Seatbelt profile for this project instead");

  ClassifyArgs classify_args;
  std::string classify_line;
  auto* classify = app.add_subcommand(
      "classify",
      "Say whether a command only reads, needs approval or is denied (CMD-6).\n"
      "  cordon classify -- git status\n"
      "  cordon classify -c 'grep -rn TODO src | head'\n"
      "  cordon classify --json -- rm -rf /");
  classify->add_flag("--json", classify_args.json,
                     "print {\"class\", \"reason\", \"word\", \"rule\"} as JSON");
  classify->add_flag("--network", classify_args.network,
                     "the command would get the network (never read-only)");
  classify->add_option("-c", classify_line, "a shell command line to classify");
  classify->add_option("command", classify_args.command, "the command and its arguments, after --");
  classify->prefix_command();

  auto* version = app.add_subcommand("version", "Print cordon's version.");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }
  CliContext ctx = load_cli_context(environ);
  if (run->parsed()) {
    if (run->count("-c")) run_args.script = script;
    // With prefix_command, everything after the first word of the command (or after --)
    // arrives here untouched.
    for (auto& extra : run->remaining()) run_args.command.push_back(extra);
    if (!run_args.command.empty() && run_args.command[0] == "--")
      run_args.command.erase(run_args.command.begin());
    return cmd_run(ctx, run_args);
  }
  if (classify->parsed()) {
    if (classify->count("-c")) classify_args.script = classify_line;
    for (auto& extra : classify->remaining()) classify_args.command.push_back(extra);
    if (!classify_args.command.empty() && classify_args.command[0] == "--")
      classify_args.command.erase(classify_args.command.begin());
    return cmd_classify(ctx, classify_args);
  }
  if (probe->parsed()) return cmd_probe(ctx, probe_json);
  if (policy->parsed()) return cmd_policy(ctx, policy_args);
  if (version->parsed()) {
    std::printf("cordon %s\n", kCordonVersion);
    return 0;
  }
  return 0;
}
