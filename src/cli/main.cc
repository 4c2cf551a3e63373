// cordon's command line: a thin face over the library.
#include <signal.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "cli/cli_docs.h"
#include "cli/commands.h"
#include "cli/subcommands.h"
#include "core/trace.h"
#include "core/version.h"
#include "host/quick_exit.h"
#include "host/self_protection.h"
#include "launch/linux/probe.h"
#include "launch/linux/session_loopback.h"
#include "launch/linux/tty_stage.h"
#include "net/linux/net_stage.h"
#include "net/ssh_connect.h"
#include "plan/ssh_rules.h"
#include "server/session_keeper.h"
#include "sys/open_files.h"

extern char** environ;

#if defined(__SANITIZE_ADDRESS__)
constexpr bool kLeakCheckAtExit = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool kLeakCheckAtExit = true;
#else
constexpr bool kLeakCheckAtExit = false;
#endif
#else
constexpr bool kLeakCheckAtExit = false;
#endif

int main(int argc, char** argv) {
  using namespace cordon;
  // PERF-1: with CORDON_TRACE, the time the program took to load shows here (with
  // CORDON_TRACE_T0, core/trace.h), before the command line is read.
  const char* tracing = std::getenv("CORDON_TRACE");
  trace_enable(tracing && *tracing);
  trace("main");
  if (argc >= 2 && std::strcmp(argv[1], "__probe-inside") == 0)
    return probe_inside_main(argc, argv);
  if (argc >= 2 && std::strcmp(argv[1], kNetStageWord) == 0)  // NET-7, inside a sandbox
    return net_stage_main(argc, argv);
  if (argc >= 2 && std::strcmp(argv[1], kSshConnectWord) == 0)  // NET-12, inside a sandbox
    return ssh_connect_main(argc, argv);
  if (argc == 2 && std::strcmp(argv[1], kLoopbackChildWord) == 0)  // a session's loopback
    return loopback_child_main();
  if (argc >= 2 && std::strcmp(argv[1], kTtyStageWord) == 0)  // JOB-3, inside a sandbox
    return tty_stage_main(argc, argv);
  // Orphans of our commands come back to us (Linux: we reap a sandbox's pid 1 ourselves), and
  // cordon's own environment, which still holds the tokens it strips from commands (ENV-1), is
  // not readable by an --outside-sandbox command of the same user (host/self_protection.h).
  protect_own_process();
  // NET-8: the proxy holds two descriptors per tunnel; the commands get the old limit back.
  raise_open_files_limit();
  // A child that stops reading its input (a judge, a command fed through stdin) must not kill
  // cordon: writes fail with EPIPE instead. Children get the default back before exec.
  signal(SIGPIPE, SIG_IGN);
  // Issue 30: a session's keeper, started detached by `cordon run --background`.
  if (argc >= 2 && std::strcmp(argv[1], kSessionKeeperWord) == 0)
    return session_keeper_main(argc, argv);

  CLI::App app{
      "cordon: run the commands of an AI coding agent in a sandbox drawn around one "
      "project.",
      "cordon"};
  app.require_subcommand(1);
  // DIST-3: the version, the commit, the bwrap found and its version, the backend.
  app.set_version_flag(
      "--version", [] { return version_text(load_cli_context(environ)); },
      "print cordon's version and commit, the bwrap found and the backend");

  // PERF-1: only the subcommand the first word names; all of them for anything else.
  const char* first = argc >= 2 ? argv[1] : "";
  bool named = false;
  for (const auto& e : subcommands()) named = named || std::strcmp(e.name, first) == 0;
  Dashes dashes;
  std::vector<Subcommand> made;
  for (const auto& e : subcommands())
    if (!named || std::strcmp(e.name, first) == 0) made.push_back(e.make(app, dashes));

  // DIST-1: the man page and completions are generated from this definition at build time.
  if (argc == 2 && std::strcmp(argv[1], "__man") == 0) {
    std::fputs(man_page(app, kCordonVersion).c_str(), stdout);
    return 0;
  }
  if (argc == 3 && std::strcmp(argv[1], "__completion") == 0) {
    std::string text = completion_script(app, argv[2]);
    if (text.empty()) {
      print_error(std::string("no completion for the shell ") + argv[2] +
                  "; use bash, zsh or fish");
      return 2;
    }
    std::fputs(text.c_str(), stdout);
    return 0;
  }

  // Split `cordon run [options] -- CMD ARGS...` at the first `--` after `run`.
  int parse_argc = argc;
  for (int i = 1; i < argc; ++i) {
    // `run` and `classify` take a command after `--` (the first such word in argv).
    if (std::strcmp(argv[i], "run") != 0 && std::strcmp(argv[i], "classify") != 0) continue;
    for (int j = i + 1; j < argc; ++j) {
      if (std::strcmp(argv[j], "--") == 0) {
        dashes.had = true;
        for (int k = j + 1; k < argc; ++k) dashes.command.push_back(argv[k]);
        parse_argc = j;
        break;
      }
    }
    break;
  }
  trace("cli built");
  try {
    app.parse(parse_argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }
  CliContext ctx = load_cli_context(environ);
  trace("context loaded");
  for (const Subcommand& sc : made) {
    if (!sc.app->parsed()) continue;
    const int status = sc.run(ctx);
    // PERF-1: a one-shot run has written and removed all it will by now (its session is
    // closed); ending without unwinding the program's statics saves their teardown, and
    // leaving the unmapping of its memory to a holder saves the caller waiting for that.
    // The sanitizer tree returns, so that its leak check still runs at exit.
    if (!sc.exit_at_once || kLeakCheckAtExit) return status;
    std::fflush(nullptr);
    trace("exiting");
    exit_leaving_teardown(status, argc, argv);
  }
  return 0;
}
