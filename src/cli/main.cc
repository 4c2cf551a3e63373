// cordon's command line: a thin face over the library.
#include <signal.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "cli/cli_docs.h"
#include "cli/commands.h"
#include "core/duration.h"
#include "core/trace.h"
#include "core/version.h"
#include "host/self_protection.h"
#include "launch/linux/probe.h"
#include "launch/linux/session_loopback.h"
#include "launch/linux/tty_stage.h"
#include "net/linux/net_stage.h"
#include "net/ssh_connect.h"
#include "plan/ssh_rules.h"
#include "server/server_main.h"
#include "server/session_keeper.h"
#include "sys/open_files.h"

extern char** environ;

namespace {

// `cordon mcp --timeout` and, for tests, CORDON_MCP_PROGRESS_MS; 0 when both are good.
int mcp_durations(const cordon::CliContext& ctx, const std::string& timeout,
                  cordon::McpArgs& args) {
  if (!timeout.empty()) {
    auto d = cordon::parse_duration(timeout);
    if (!d) {
      cordon::print_error("--timeout " + timeout + ": not a duration; use 30s, 5m, 1h or 0.");
      return 2;
    }
    args.default_timeout = *d;
  }
  const std::string ms = ctx.env.value("CORDON_MCP_PROGRESS_MS");
  if (!ms.empty()) {
    auto d = cordon::parse_duration(ms + "ms");
    if (!d || d->count() == 0) {
      cordon::print_error("CORDON_MCP_PROGRESS_MS=" + ms + ": give a number of milliseconds.");
      return 2;
    }
    args.progress_interval = *d;
  }
  return 0;
}

}  // namespace

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

  RunArgs run_args;
  std::string script;
  auto* run = app.add_subcommand(
      "run",
      "Run one command in the sandbox.\n"
      "  cordon run -- make test\n"
      "  cordon run -c 'npm ci && npm test'\n"
      "  cordon run --network -- npm install      (the internet, project secrets hidden)\n"
      "  cordon run --outside-sandbox -- docker ps (unconfined, credentials still stripped)\n"
      "  cordon run --session S --background -- npm run dev   (prints a job id: cordon job)");
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
  run->add_flag(
      "--away", run_args.away,
      "the user is not watching: whatever would ask on the terminal is refused");  // APR-4
  run->add_flag("--allow-command", run_args.allow_command,
                "approve running a command that the command policy says needs approval (when "
                "there is no sandbox: mode off or external)");
  run->add_option("--timeout", run_args.timeout,
                  "end the whole command after this long (30s, 5m, 1h): exit status 124");
  run->add_option("-c", script, "a shell script to run instead of a command");
  run->add_option("--cwd", run_args.cwd, "run in this folder (absolute) instead of this one");
  run->add_flag("--background", run_args.background,
                "start the command as a background job of the --session and print its id; "
                "`cordon job` reads its output, writes to it, waits for it, ends it");
  run->add_flag("--base64", run_args.base64,
                "-c and --cwd are base64-encoded (what `cordon hook` writes: no quoting to break)");
  // The command itself never goes through the option parser: everything after the first `--`
  // is cut off before parsing (below), and without `--` the first word that is not an option
  // starts the command (prefix_command), so its own flags stay its own.
  run->prefix_command();
  run->footer(
      "The command follows `--` (cordon run [options] -- CMD ARGS...), or is given as a "
      "shell script with -c 'SCRIPT'.");

  bool probe_json = false;
  auto* probe = app.add_subcommand(
      "probe", "Check that the sandbox holds on this machine: one line per check.");
  probe->add_flag("--json", probe_json, "print the checks as JSON");

  PolicyArgs policy_args;
  auto* policy =
      app.add_subcommand("policy", "Print the policy resolved for the current project.");  // CFG-6
  policy->add_option("--project", policy_args.project, "project root");
  policy->add_flag("--json", policy_args.json, "stable machine-readable form");
  policy->add_flag("--seatbelt", policy_args.seatbelt,
                   "print the macOS Seatbelt profile for this project instead");

  ReviewArgs review_args;
  auto* review = app.add_subcommand(
      "review",
      "Show what changed since `cordon review start`, from a fresh index built from the "
      "recorded commit.");  // REV-1
  review->add_option("--project", review_args.project, "project root");
  review->add_option("--session", review_args.session, "the session the review belongs to");
  review->add_flag("--json", review_args.json, "machine-readable output");
  auto* review_start = review->add_subcommand(
      "start", "Record the current commit and the ignored files, outside the project.");
  review_start->add_option("--project", review_args.project, "project root");
  review_start->add_option("--session", review_args.session, "the session the review belongs to");

  CacheArgs cache_args;
  auto* cache = app.add_subcommand(
      "cache",
      "List the projects' sandbox package caches with their sizes and last use.");  // PKG-5
  auto* cache_clean = cache->add_subcommand(
      "clean", "Remove the sandbox package caches of the current project, another or all.");
  cache_clean->add_option("--project", cache_args.project, "the project whose caches to remove");
  cache_clean->add_flag("--all", cache_args.all, "remove every project's caches");

  SessionArgs session_args;
  auto* session = app.add_subcommand("session", "Manage lasting sessions.");  // SES-1
  session->require_subcommand(1);
  auto* s_start = session->add_subcommand(
      "start", "Start a session; prints its id (use it with --session or CORDON_SESSION).");
  s_start->add_option("--project", session_args.project, "project root");
  s_start->add_option("--id", session_args.id, "the id to use (default: 16 random hex)");
  session->add_subcommand("list", "List the sessions and their leftover records.");
  auto* s_end = session->add_subcommand("end", "End a session and remove its private /tmp.");
  s_end->add_option("id", session_args.id, "session id")->required();
  auto* s_resume = session->add_subcommand(
      "resume",
      "Resume a session: handle what a killed cordon left, refresh the "  // SES-3
      "tracked set.");                                                    // SES-4
  s_resume->add_option("id", session_args.id, "session id")->required();

  LogArgs log_args;  // AUD-1
  auto* log = app.add_subcommand(
      "log",
      "Show a session's audit log: each command with its folder, mode and backend, who let it "
      "run (the sandbox, read-only, a person, a grant, approve-all, the judge), its ways out, "
      "its end, the paths moved aside and the hosts it reached.\n"
      "  cordon log                      (the session that wrote last)\n"
      "  cordon log --session S --since 2h\n"
      "  cordon log verify --session S   (exit 1 when a line was edited, deleted or cut off)");
  log->add_option("--session", log_args.session,
                  "the session (default: CORDON_SESSION, else the one that wrote last)");
  log->add_flag("--json", log_args.json, "print the events as stored, one JSON object a line");
  log->add_option("--since", log_args.since,
                  "only the events since this UTC time or date (2026-12-06T04:00:00Z), or this "
                  "long ago (30m, 2h)");
  auto* log_verify = log->add_subcommand(
      "verify",
      "Check the session's audit log: every line against the hash the next one records, and the "
      "last against the end the session recorded. Exits 1 and names the line where it breaks.");
  log_verify->add_option("--session", log_args.session,
                         "the session (default: CORDON_SESSION, else the one that wrote last)");

  JobArgs job_args;
  auto* job = app.add_subcommand(
      "job",
      "The background jobs of a session (`cordon run --session S --background`).\n"
      "  cordon job list --session S\n"
      "  cordon job output --session S 1     (what came since the last read)\n"
      "  cordon job write --session S 1 'y'  (a line to its input)\n"
      "  cordon job kill --session S 1\n"
      "  cordon job wait --session S 1       (exits with the job's exit status)");
  job->require_subcommand(1);
  job->footer(
      "The jobs are held by the session's keeper, a process of cordon's own that ends them at "
      "`cordon session end S`, or exits by itself after 10 minutes with no job running and no "
      "`cordon` command talking to it (CORDON_KEEPER_IDLE sets another time); until then an "
      "ended job's output stays readable.");
  auto add_job_action = [&](const char* name, const char* what) {
    auto* sc = job->add_subcommand(name, what);
    sc->add_option("--session", job_args.session, "the session (default: CORDON_SESSION)");
    if (std::strcmp(name, "list") != 0)
      sc->add_option("id", job_args.job, "the job's id, as `cordon run --background` printed it")
          ->required();
    return sc;
  };
  add_job_action("list", "List the session's jobs: id, state (running, exit N), command.");
  auto* j_output = add_job_action(
      "output",
      "Print what the job wrote since the last `cordon job output` of it (stdout to stdout, "
      "stderr to stderr).");
  j_output->add_flag("--follow,-f", job_args.follow,
                     "keep printing until the job ends, then exit with its exit status");
  j_output->add_flag("--all", job_args.all, "print all of its output still held, from the start");
  auto* j_write = add_job_action(
      "write", "Write to the job's standard input: TEXT and a newline, or cordon's own input.");
  j_write->add_option("text", job_args.text, "the line to write (default: read standard input)");
  j_write->add_flag("-n,--no-newline", job_args.no_newline, "write TEXT without a newline");
  j_write->add_flag("--eof", job_args.eof, "then close the job's input");
  auto* j_kill = add_job_action(
      "kill", "End the job: with KILL (the default) its whole process tree, then wait for it.");
  j_kill->add_option("--signal,-s", job_args.signal,
                     "send this signal instead (TERM, INT, HUP, ... or a number): to its "
                     "process group, not waited for");
  auto* j_wait = add_job_action(
      "wait",
      "Wait for the job's end and exit with its exit status (128+N for signal N, 124 when "
      "--timeout passes first).");
  j_wait->add_option("--timeout", job_args.timeout, "give up after this long (30s, 5m)");

  ServeArgs serve_args;
  auto* serve = app.add_subcommand(
      "serve",
      "JSON-RPC 2.0 server for agent harnesses, one object per line on stdin/stdout; "  // SRV-1
      "see docs/protocol.md.");
  serve->add_option("--max-in-flight", serve_args.max_in_flight,
                    "requests running at once (default 32)");

  McpArgs mcp_args;
  bool allow_network = false, allow_command = false, allow_credential_read = false,
       allow_write_outside = false, allow_protected_write = false;
  auto* mcp = app.add_subcommand(
      "mcp",
      "Model Context Protocol server over stdio: tools bash, bash_output, kill_bash, "  // SRV-2
      "bash_write (its background jobs), read_file, write_file, edit_file, search. Questions go "
      "to the user by MCP elicitation; for a client without it, the --allow-* options approve a "
      "kind of request for the whole session. Nothing approves outside_sandbox in advance.");
  mcp->add_option("--project", mcp_args.project,
                  "project root (default: the git top-level of the working folder)");
  mcp->add_option("--session", mcp_args.session, "use this lasting session");  // SES-1
  mcp->add_flag("--away", mcp_args.away, "the user is not watching: refuse whatever would ask");
  mcp->add_flag("--allow-network", allow_network,
                "approve `network: true` for every command of this session");
  mcp->add_flag("--allow-command", allow_command,
                "approve commands the command policy says need approval (mode off/external)");
  mcp->add_flag("--allow-credential-read", allow_credential_read,
                "approve reading credential files (.env, *.pem, ...) with read_file");
  mcp->add_flag("--allow-write-outside", allow_write_outside,
                "approve file-tool writes outside the project and the writable folders");
  mcp->add_flag("--allow-protected-write", allow_protected_write,
                "approve file-tool writes to protected paths (.envrc, .vscode/, Makefile, ...)");
  mcp->add_option("--max-in-flight", mcp_args.max_in_flight,
                  "tool calls running at once (default 32)");
  std::string mcp_timeout;
  mcp->add_option("--timeout", mcp_timeout,
                  "end a `bash` call that gives no timeout_ms after this long (default 10m; 0: "
                  "never), since some clients never cancel a call they gave up on");

  ClassifyArgs classify_args;
  std::string classify_line;
  auto* classify = app.add_subcommand(
      "classify",
      "Say whether a command only reads, needs approval or is denied.\n"  // CMD-6
      "  cordon classify -- git status\n"
      "  cordon classify -c 'grep -rn TODO src | head'\n"
      "  cordon classify --json -- rm -rf /");
  classify->add_flag("--json", classify_args.json,
                     "print {\"class\", \"reason\", \"word\", \"rule\"} as JSON");
  classify->add_flag("--network", classify_args.network,
                     "the command would get the network (never read-only)");
  classify->add_option("-c", classify_line, "a shell command line to classify");
  classify->prefix_command();  // the command after `--` is cut off before parsing, as for run

  auto* setup = app.add_subcommand(
      "setup", "Set this machine, or a coding agent, up for the sandbox.");  // DIST-4
  setup->require_subcommand(1);
  auto* setup_apparmor = setup->add_subcommand(
      "apparmor",
      "Print the AppArmor profile that lets bwrap create user namespaces where AppArmor "
      "restricts them (Ubuntu 23.10 and later), and how to install it; run as root, write it "
      "to /etc/apparmor.d/bwrap and load it.\n"  // PROBE-4
      "  cordon setup apparmor | sudo tee /etc/apparmor.d/bwrap\n"
      "  sudo cordon setup apparmor");
  bool setup_print = false;
  setup_apparmor->add_flag("--print", setup_print,
                           "only print the profile and the commands, even when run as root");

  std::string hook_client;
  auto* hook = app.add_subcommand(
      "hook",
      "Answer a coding agent's pre-tool hook: reads its hook JSON on stdin and answers with the "
      "shell command wrapped in `cordon run` (see docs/integrations.md). Exit status 2 "  // DIST-4
      "blocks the command. A hook is a convenience, not a boundary.\n"
      "  settings: \"command\": \"cordon hook claude-code\"");
  hook->add_option("client", hook_client, "claude-code, codex, gemini, cursor or vscode")
      ->required();

  // DIST-4: one subcommand per coding agent.
  std::vector<CLI::App*> setup_clients;
  bool client_print = false;
  std::string client_project_dir;
  std::vector<CLI::Option*> client_project;
  for (const char* name : {"claude-code", "codex", "gemini", "cursor", "vscode", "zed"}) {
    auto* sc = setup->add_subcommand(
        name, std::string("Register `cordon mcp` with ") + name +
                  " and turn its own shell tool off where it allows that (see "
                  "docs/integrations.md). Settings files are only added to, backed up first.");
    sc->add_flag("--print", client_print, "show exactly what would be done; change nothing");
    // DIST-4: `--project` alone, or `--project DIR` as `run` and `policy` take it.
    client_project.push_back(
        sc->add_option("--project", client_project_dir,
                       "the project's own settings, not the user's: DIR, or without it the git "
                       "top-level of this folder")
            ->expected(0, 1));
    setup_clients.push_back(sc);
  }

  auto* version = app.add_subcommand(
      "version", "Print cordon's version and commit, the bwrap found and the backend.");  // DIST-3

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
  std::vector<std::string> command_after_dashes;
  bool had_dashes = false;
  int parse_argc = argc;
  for (int i = 1; i < argc; ++i) {
    // `run` and `classify` take a command after `--` (the first such word in argv).
    if (std::strcmp(argv[i], "run") != 0 && std::strcmp(argv[i], "classify") != 0) continue;
    for (int j = i + 1; j < argc; ++j) {
      if (std::strcmp(argv[j], "--") == 0) {
        had_dashes = true;
        for (int k = j + 1; k < argc; ++k) command_after_dashes.push_back(argv[k]);
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
  trace_enable(!ctx.env.value("CORDON_TRACE").empty());
  trace("context loaded");
  if (run->parsed()) {
    if (run->count("-c")) run_args.script = script;
    run_args.command = run->remaining();
    if (had_dashes) {
      if (!run_args.command.empty()) {
        print_error("unexpected words before `--`: " + run_args.command[0] +
                    ". Usage: cordon run [options] -- CMD ARGS...");
        return kExitRefused;
      }
      run_args.command = command_after_dashes;
    }
    // PERF-1: a one-shot run has written and removed all it will by now (its session is
    // closed); ending without unwinding the program's statics saves their teardown.
    // The sanitizer tree returns, so that its leak check still runs at exit.
    const int status = cmd_run(ctx, run_args);
    if (kLeakCheckAtExit) return status;
    std::fflush(nullptr);
    trace("exiting");
    _exit(status);
  }
  if (classify->parsed()) {
    if (classify->count("-c")) classify_args.script = classify_line;
    classify_args.command = classify->remaining();
    if (had_dashes) {
      if (!classify_args.command.empty()) {
        print_error("unexpected words before `--`: " + classify_args.command[0] +
                    ". Usage: cordon classify [--json] (-- CMD ARGS... | -c 'LINE')");
        return kExitRefused;
      }
      classify_args.command = command_after_dashes;
    }
    return cmd_classify(ctx, classify_args);
  }
  if (probe->parsed()) return cmd_probe(ctx, probe_json);
  if (serve->parsed()) return serve_main(serve_args);
  if (mcp->parsed()) {
    if (auto st = mcp_durations(ctx, mcp_timeout, mcp_args); st != 0) return st;
    if (allow_network) mcp_args.allow.insert(AskKind::kNetwork);
    if (allow_command) mcp_args.allow.insert(AskKind::kCommand);
    if (allow_credential_read) mcp_args.allow.insert(AskKind::kCredentialRead);
    if (allow_write_outside) mcp_args.allow.insert(AskKind::kWriteOutside);
    if (allow_protected_write) mcp_args.allow.insert(AskKind::kProtectedWrite);
    return mcp_main(mcp_args);
  }
  if (policy->parsed()) return cmd_policy(ctx, policy_args);
  if (cache->parsed()) {
    cache_args.clean = cache_clean->parsed();
    return cmd_cache(ctx, cache_args);
  }
  if (session->parsed()) {
    for (auto* sub : session->get_subcommands()) session_args.action = sub->get_name();
    return cmd_session(ctx, session_args);
  }
  if (log->parsed()) {
    log_args.verify = log_verify->parsed();
    return cmd_log(ctx, log_args);
  }
  if (job->parsed()) {
    for (auto* sub : job->get_subcommands()) job_args.action = sub->get_name();
    return cmd_job(ctx, job_args);
  }
  if (review->parsed()) {
    review_args.start = review_start->parsed();
    return cmd_review(ctx, review_args);
  }
  if (version->parsed()) {
    std::printf("%s\n", version_text(ctx).c_str());
    return 0;
  }
  if (setup_apparmor->parsed()) return cmd_setup_apparmor(ctx, setup_print);
  if (hook->parsed()) return cmd_hook(ctx, hook_client);
  for (size_t i = 0; i < setup_clients.size(); ++i)
    if (setup_clients[i]->parsed())
      return cmd_setup_client(ctx, setup_clients[i]->get_name(), client_print,
                              client_project[i]->count() > 0, client_project_dir);
  return 0;
}
