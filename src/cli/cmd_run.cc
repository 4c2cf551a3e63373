#include <fmt/format.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>

#include "api/face_options.h"
#include "cli/commands.h"
#include "cli/tty_asker.h"
#include "cordon/cordon.h"
#include "core/base64.h"
#include "core/duration.h"
#include "core/paths.h"
#include "core/strings.h"
#include "core/trace.h"
#include "host/quick_exit.h"
#include "server/keeper_files.h"

namespace cordon {

namespace {

// AUD-2: a short block after the output, one line per refusal: what, and the fix (the notes
// above carry the rule in full).
void print_violations(const std::vector<api::Violation>& violations, const std::string& home) {
  for (const auto& v : violations) {
    std::string what = v.path.empty() ? v.host : tilde_path(v.path, home);
    print_error(fmt::format("refused {}{}{}: {}{}", v.kind, what.empty() ? "" : " ", what, v.fix,
                            v.source == "output" ? " (as read from the output)" : ""));
  }
}

api::Cancel* g_cancel = nullptr;

void on_signal(int) {
  if (g_cancel) g_cancel->cancel();  // async-signal-safe
}

// Ctrl-C, a closed terminal or a `kill` end the command (and its whole sandbox), then cordon
// still finishes its aftercare before exiting.
void install_cancel(api::Cancel& cancel) {
  g_cancel = &cancel;
  struct sigaction sa {};
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  for (int s : {SIGINT, SIGTERM, SIGHUP, SIGQUIT}) sigaction(s, &sa, nullptr);
  signal(SIGPIPE, SIG_IGN);
}

}  // namespace

void print_error(const std::string& message) {
  // Messages carry names from the disk and the command: printable, so none can start a line
  // of its own or drive the terminal (issue 13).
  std::fprintf(stderr, "cordon: %s\n", printable(message).c_str());
}

// --base64 and --cwd (what `cordon hook` writes): decoded in place; 0 when they are good.
static int take_hook_form(CliContext& ctx, RunArgs& args) {
  if (args.base64) {
    if (!args.script) {
      print_error("--base64 needs the script as -c BASE64.");
      return kExitRefused;
    }
    auto script = base64_decode(*args.script);
    auto cwd = base64_decode(args.cwd);
    if (!script || !cwd) {
      print_error("--base64: -c and --cwd must be base64 (as `cordon hook` writes them).");
      return kExitRefused;
    }
    args.script = *script;
    args.cwd = *cwd;
  }
  if (args.cwd.empty()) return 0;
  if (args.cwd.front() != '/' || chdir(args.cwd.c_str()) != 0) {
    print_error(fmt::format("--cwd {}: {}; give an absolute path to an existing folder.", args.cwd,
                            args.cwd.front() != '/' ? "not absolute" : strerror(errno)));
    return kExitRefused;
  }
  ctx.cwd = args.cwd;
  return 0;
}

int cmd_run(const CliContext& ctx_in, const RunArgs& args_in) {
  CliContext ctx = ctx_in;
  RunArgs args = args_in;
  if (int st = take_hook_form(ctx, args); st != 0) return st;
  api::ExecRequest req;
  if (args.script && !args.command.empty()) {
    print_error("give either a command after -- or a script with -c, not both.");
    return kExitRefused;
  }
  if (args.script)
    req.command = *args.script;
  else
    req.argv = args.command;
  if (req.argv.empty() && !req.command) {
    print_error("no command given. Usage: cordon run [options] -- CMD ARGS... | -c 'SCRIPT'");
    return kExitRefused;
  }
  if (!args.timeout.empty()) {
    auto d = parse_duration(args.timeout);
    if (!d || d->count() <= 0) {
      print_error(
          fmt::format("--timeout {}: not a duration; use 30s, 5m, 1h or 500ms.", args.timeout));
      return kExitRefused;
    }
    req.timeout = *d;
  }
  req.network = args.network;
  req.outside_sandbox = args.outside_sandbox;
  req.cwd = ctx.cwd;
  if (args.background) return cmd_run_background(ctx, args, req);
  api::FaceOptions face;
  // APR-7: on the CLI, --network and --outside-sandbox typed by a person are the approval.
  face.ways_out_typed = true;
  face.inherit_stdio = true;

  TtyAsker asker;
  api::Options opts;
  opts.session_loopback = false;  // one command: a loopback of its own (JOB-2)
  opts.project = args.project;
  opts.cwd = ctx.cwd;
  opts.session = args.session.empty() ? ctx.env.value("CORDON_SESSION") : args.session;
  // JOB-2: beside a session keeper's jobs, the command is in their loopback (a dev server a
  // background job started is reachable); otherwise a loopback of its own.
  if (!opts.session.empty())
    if (auto h = loopback_holder(keeper_files(ctx.folders, opts.session)))
      face.loopback_holder = std::make_pair(h->pid, h->start);
  opts.away = args.away;
  opts.asker = &asker;
  if (args.allow_command) opts.preapproved.push_back(AskKind::kCommand);
  opts.cordon_binary = ctx.exe;
  // Issue 28 (ENV-4): the notices come after the command's output, which they do not concern.
  auto notices = std::make_shared<std::vector<std::string>>();
  opts.on_notice = [notices](const std::string& n) { notices->push_back(n); };
  struct SayLater {
    std::shared_ptr<std::vector<std::string>> n;
    ~SayLater() {
      for (const auto& s : *n) print_error(s);
    }
  } say_later{notices};
  trace("config loaded");
  // PERF-1: this process ends when the command's session does; its empty folders go after.
  defer_removals_to_exit();
  auto session = api::open_for_face(opts, face);
  trace("session opened");
  if (!session.ok()) {
    print_error(session.error().message);
    return kExitRefused;
  }
  api::Cancel cancel;
  install_cancel(cancel);
  req.cancel = &cancel;
  (*session)->begin_task();  // APR-5, APR-6: a `cordon run` is one task
  auto res = (*session)->exec(req);
  trace("run returned");
  if (!res.ok()) {
    print_error(res.error().message);
    print_violations(res.error().violations, ctx.home);  // AUD-2: refused before it started
    return kExitRefused;
  }
  for (const auto& m : res->messages) print_error(m);
  for (const auto& n : res->notes) print_error("note: " + n);
  print_violations(res->violations, ctx.home);
  return res->exit_code;
}

}  // namespace cordon
