#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <cstdio>

#include <fmt/format.h>

#include "cli/commands.h"
#include "core/duration.h"
#include "core/trace.h"
#include "session/session.h"

namespace cordon {

namespace {
int g_cancel_write = -1;
void on_signal(int) {
  if (g_cancel_write >= 0) {
    char c = 1;
    ssize_t w = ::write(g_cancel_write, &c, 1);
    (void)w;
  }
}

// Ctrl-C, a closed terminal or a `kill` end the command (and its whole sandbox), then cordon
// still finishes its aftercare before exiting.
int install_cancel_pipe() {
  int p[2];
  if (pipe2(p, O_CLOEXEC | O_NONBLOCK) < 0) return -1;
  int r = fcntl(p[0], F_DUPFD_CLOEXEC, 10), w = fcntl(p[1], F_DUPFD_CLOEXEC, 10);
  close(p[0]);
  close(p[1]);
  g_cancel_write = w;
  struct sigaction sa {};
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  for (int s : {SIGINT, SIGTERM, SIGHUP, SIGQUIT}) sigaction(s, &sa, nullptr);
  signal(SIGPIPE, SIG_IGN);
  return r;
}
}  // namespace

void print_error(const std::string& message) {
  std::fprintf(stderr, "cordon: %s\n", message.c_str());
}

int cmd_run(const CliContext& ctx, const RunArgs& args) {
  auto policy = load_policy(ctx);
  if (!policy.ok()) {
    print_error(policy.error().message);
    print_error("sandboxed commands are refused until the config is fixed.");
    return kExitRefused;
  }
  for (const auto& w : policy->warnings) print_error("warning: " + w);
  Request req;
  if (args.script && !args.command.empty()) {
    print_error("give either a command after -- or a script with -c, not both.");
    return kExitRefused;
  }
  if (args.script)
    req.script = *args.script;
  else
    req.argv = args.command;
  if (req.argv.empty() && !req.script) {
    print_error("no command given. Usage: cordon run [options] -- CMD ARGS... | -c 'SCRIPT'");
    return kExitRefused;
  }
  if (!args.timeout.empty()) {
    auto d = parse_duration(args.timeout);
    if (!d || d->count() <= 0) {
      print_error(fmt::format("--timeout {}: not a duration; use 30s, 5m, 1h or 500ms.",
                              args.timeout));
      return kExitRefused;
    }
    req.timeout = *d;
  }
  req.network = args.network;
  req.outside_sandbox = args.outside_sandbox;
  req.cwd = ctx.cwd;

  SessionOptions so;
  so.policy = std::move(*policy);
  so.folders = ctx.folders;
  so.env = ctx.env;
  so.home = ctx.home;
  so.cwd = ctx.cwd;
  so.project = args.project;
  so.id = args.session.empty() ? ctx.env.value("CORDON_SESSION") : args.session;
  so.cordon_exe = ctx.exe;
  so.on_notice = [](const std::string& n) { print_error(n); };
  trace("config loaded");
  auto session = Session::open(std::move(so));
  trace("session opened");
  if (!session.ok()) {
    print_error(session.error().message);
    return kExitRefused;
  }
  LaunchIo io;
  io.in = isatty(0) ? InputMode::kNull : InputMode::kInherit;  // PROC-2
  io.out = OutputMode::kInherit;
  io.err = OutputMode::kTee;  // the tail is read for the blocked-command note (RES-2)
  io.capture_limit = 64 << 10;
  io.cancel_fd = install_cancel_pipe();
  CommandResult res = (*session)->run(req, io);
  trace("run returned");
  if (res.refusal) {
    print_error(res.refusal->message);
    return kExitRefused;
  }
  for (const auto& m : res.messages) print_error(m);
  if (res.timed_out)
    print_error(fmt::format("the command ran past its timeout ({}) and was ended, with every "
                            "process it started.",
                            args.timeout));
  for (const auto& n : res.notes) print_error("note: " + n);
  if (res.blocked_note) print_error("note: " + *res.blocked_note);
  return res.exit_code;
}

}  // namespace cordon
