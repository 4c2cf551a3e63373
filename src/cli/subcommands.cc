// The subcommands of `cordon` (issue 29: main registers only the one given, so a `cordon run`
// does not build the others' options): each one's options on a CLI::App, and what it runs.
#include "cli/subcommands.h"

#include <cstdio>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "core/duration.h"
#include "server/server_main.h"

namespace cordon {

namespace {

// `cordon mcp --timeout` and, for tests, CORDON_MCP_PROGRESS_MS; 0 when both are good.
int mcp_durations(const CliContext& ctx, const std::string& timeout, McpArgs& args) {
  if (!timeout.empty()) {
    auto d = parse_duration(timeout);
    if (!d) {
      print_error("--timeout " + timeout + ": not a duration; use 30s, 5m, 1h or 0.");
      return 2;
    }
    args.default_timeout = *d;
  }
  const std::string ms = ctx.env.value("CORDON_MCP_PROGRESS_MS");
  if (!ms.empty()) {
    auto d = parse_duration(ms + "ms");
    if (!d || d->count() == 0) {
      print_error("CORDON_MCP_PROGRESS_MS=" + ms + ": give a number of milliseconds.");
      return 2;
    }
    args.progress_interval = *d;
  }
  return 0;
}

// The command of `run` and `classify`: after `--` (cut off before parsing), else what the
// option parser left. Words before `--` are an error (nullopt, said).
std::optional<std::vector<std::string>> command_words(CLI::App& sc, const Dashes& dashes,
                                                      const char* usage) {
  std::vector<std::string> words = sc.remaining();
  if (!dashes.had) return words;
  if (!words.empty()) {
    print_error("unexpected words before `--`: " + words[0] + ". Usage: " + usage);
    return std::nullopt;
  }
  return dashes.command;
}

Subcommand make_run(CLI::App& parent, const Dashes& dashes) {
  struct State {
    RunArgs args;
    std::string script;
  };
  auto s = std::make_shared<State>();
  auto* run = parent.add_subcommand(
      "run",
      "Run one command in the sandbox.\n"
      "  cordon run -- make test\n"
      "  cordon run -c 'npm ci && npm test'\n"
      "  cordon run --network -- npm install      (the internet, project secrets hidden)\n"
      "  cordon run --outside-sandbox -- docker ps (unconfined, credentials still stripped)\n"
      "  cordon run --session S --background -- npm run dev   (prints a job id: cordon job)");
  run->add_option("--project", s->args.project,
                  "project root (default: the git top-level of the working folder, else the "
                  "working folder)");
  run->add_option("--session", s->args.session,
                  "run in this session (keeps its /tmp between commands); also CORDON_SESSION");
  run->add_flag("--network", s->args.network,
                "approve the machine's network for this command (project credential files "
                "are hidden)");
  run->add_flag("--outside-sandbox", s->args.outside_sandbox,
                "approve running this command unconfined (the environment is still stripped)");
  run->add_flag(
      "--away", s->args.away,
      "the user is not watching: whatever would ask on the terminal is refused");  // APR-4
  run->add_flag("--allow-command", s->args.allow_command,
                "approve running a command that the command policy says needs approval (when "
                "there is no sandbox: mode off or external)");
  run->add_option("--timeout", s->args.timeout,
                  "end the whole command after this long (30s, 5m, 1h): exit status 124");
  run->add_option("-c", s->script, "a shell script to run instead of a command");
  run->add_option("--cwd", s->args.cwd, "run in this folder (absolute) instead of this one");
  run->add_flag("--background", s->args.background,
                "start the command as a background job of the --session and print its id; "
                "`cordon job` reads its output, writes to it, waits for it, ends it");
  run->add_flag("--base64", s->args.base64,
                "-c and --cwd are base64-encoded (what `cordon hook` writes: no quoting to break)");
  // The command itself never goes through the option parser: everything after the first `--`
  // is cut off before parsing (main's Dashes), and without `--` the first word that is not an
  // option starts the command (prefix_command), so its own flags stay its own.
  run->prefix_command();
  run->footer(
      "The command follows `--` (cordon run [options] -- CMD ARGS...), or is given as a "
      "shell script with -c 'SCRIPT'.");
  auto go = [s, run, &dashes](const CliContext& ctx) {
    if (run->count("-c")) s->args.script = s->script;
    auto words = command_words(*run, dashes, "cordon run [options] -- CMD ARGS...");
    if (!words) return kExitRefused;
    s->args.command = std::move(*words);
    return cmd_run(ctx, s->args);
  };
  return {run, go, /*exit_at_once=*/true};
}

Subcommand make_probe(CLI::App& parent, const Dashes&) {
  auto json = std::make_shared<bool>(false);
  auto* probe = parent.add_subcommand(
      "probe", "Check that the sandbox holds on this machine: one line per check.");
  probe->add_flag("--json", *json, "print the checks as JSON");
  return {probe, [json](const CliContext& ctx) { return cmd_probe(ctx, *json); }};
}

Subcommand make_policy(CLI::App& parent, const Dashes&) {
  auto a = std::make_shared<PolicyArgs>();
  auto* policy = parent.add_subcommand(
      "policy", "Print the policy resolved for the current project.");  // CFG-6
  policy->add_option("--project", a->project, "project root");
  policy->add_flag("--json", a->json, "stable machine-readable form");
  policy->add_flag("--seatbelt", a->seatbelt,
                   "print the macOS Seatbelt profile for this project instead");
  return {policy, [a](const CliContext& ctx) { return cmd_policy(ctx, *a); }};
}

Subcommand make_review(CLI::App& parent, const Dashes&) {
  auto a = std::make_shared<ReviewArgs>();
  auto* review = parent.add_subcommand(
      "review",
      "Show what changed since `cordon review start`, from a fresh index built from the "
      "recorded commit.");  // REV-1
  review->add_option("--project", a->project, "project root");
  review->add_option("--session", a->session, "the session the review belongs to");
  review->add_flag("--json", a->json, "machine-readable output");
  auto* review_start = review->add_subcommand(
      "start", "Record the current commit and the ignored files, outside the project.");
  review_start->add_option("--project", a->project, "project root");
  review_start->add_option("--session", a->session, "the session the review belongs to");
  return {review, [a, review_start](const CliContext& ctx) {
            a->start = review_start->parsed();
            return cmd_review(ctx, *a);
          }};
}

Subcommand make_cache(CLI::App& parent, const Dashes&) {
  auto a = std::make_shared<CacheArgs>();
  auto* cache = parent.add_subcommand(
      "cache",
      "List the projects' sandbox package caches with their sizes and last use.");  // PKG-5
  auto* cache_clean = cache->add_subcommand(
      "clean", "Remove the sandbox package caches of the current project, another or all.");
  cache_clean->add_option("--project", a->project, "the project whose caches to remove");
  cache_clean->add_flag("--all", a->all, "remove every project's caches");
  return {cache, [a, cache_clean](const CliContext& ctx) {
            a->clean = cache_clean->parsed();
            return cmd_cache(ctx, *a);
          }};
}

Subcommand make_session(CLI::App& parent, const Dashes&) {
  auto a = std::make_shared<SessionArgs>();
  auto* session = parent.add_subcommand("session", "Manage lasting sessions.");  // SES-1
  session->require_subcommand(1);
  auto* s_start = session->add_subcommand(
      "start", "Start a session; prints its id (use it with --session or CORDON_SESSION).");
  s_start->add_option("--project", a->project, "project root");
  s_start->add_option("--id", a->id, "the id to use (default: 16 random hex)");
  session->add_subcommand("list", "List the sessions and their leftover records.");
  auto* s_end = session->add_subcommand("end", "End a session and remove its private /tmp.");
  s_end->add_option("id", a->id, "session id")->required();
  auto* s_resume = session->add_subcommand(
      "resume",
      "Resume a session: handle what a killed cordon left, refresh the "  // SES-3
      "tracked set.");                                                    // SES-4
  s_resume->add_option("id", a->id, "session id")->required();
  return {session, [a, session](const CliContext& ctx) {
            for (auto* sub : session->get_subcommands()) a->action = sub->get_name();
            return cmd_session(ctx, *a);
          }};
}

Subcommand make_log(CLI::App& parent, const Dashes&) {
  auto a = std::make_shared<LogArgs>();
  auto* log = parent.add_subcommand(
      "log",
      "Show a session's audit log: each command with its folder, mode and backend, who let it "
      "run (the sandbox, read-only, a person, a grant, approve-all, the judge), its ways out, "
      "its end, the paths moved aside and the hosts it reached.\n"
      "  cordon log                      (the session that wrote last)\n"
      "  cordon log --session S --since 2h\n"
      "  cordon log verify --session S   (exit 1 when a line was edited, deleted or cut off)");
  log->add_option("--session", a->session,
                  "the session (default: CORDON_SESSION, else the one that wrote last)");
  log->add_flag("--json", a->json, "print the events as stored, one JSON object a line");
  log->add_option("--since", a->since,
                  "only the events since this UTC time or date (2026-12-06T04:00:00Z), or this "
                  "long ago (30m, 2h)");
  auto* log_verify = log->add_subcommand(
      "verify",
      "Check the session's audit log: every line against the hash the next one records, and the "
      "last against the end the session recorded. Exits 1 and names the line where it breaks.");
  log_verify->add_option("--session", a->session,
                         "the session (default: CORDON_SESSION, else the one that wrote last)");
  return {log, [a, log_verify](const CliContext& ctx) {
            a->verify = log_verify->parsed();
            return cmd_log(ctx, *a);
          }};
}

Subcommand make_job(CLI::App& parent, const Dashes&) {
  auto a = std::make_shared<JobArgs>();
  auto* job = parent.add_subcommand(
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
  auto add_job_action = [&a, job](const char* name, const char* what) {
    auto* sc = job->add_subcommand(name, what);
    sc->add_option("--session", a->session, "the session (default: CORDON_SESSION)");
    if (std::strcmp(name, "list") != 0)
      sc->add_option("id", a->job, "the job's id, as `cordon run --background` printed it")
          ->required();
    return sc;
  };
  add_job_action("list", "List the session's jobs: id, state (running, exit N), command.");
  auto* j_output = add_job_action(
      "output",
      "Print what the job wrote since the last `cordon job output` of it (stdout to stdout, "
      "stderr to stderr).");
  j_output->add_flag("--follow,-f", a->follow,
                     "keep printing until the job ends, then exit with its exit status");
  j_output->add_flag("--all", a->all, "print all of its output still held, from the start");
  auto* j_write = add_job_action(
      "write", "Write to the job's standard input: TEXT and a newline, or cordon's own input.");
  j_write->add_option("text", a->text, "the line to write (default: read standard input)");
  j_write->add_flag("-n,--no-newline", a->no_newline, "write TEXT without a newline");
  j_write->add_flag("--eof", a->eof, "then close the job's input");
  auto* j_kill = add_job_action(
      "kill", "End the job: with KILL (the default) its whole process tree, then wait for it.");
  j_kill->add_option("--signal,-s", a->signal,
                     "send this signal instead (TERM, INT, HUP, ... or a number): to its "
                     "process group, not waited for");
  auto* j_wait = add_job_action(
      "wait",
      "Wait for the job's end and exit with its exit status (128+N for signal N, 124 when "
      "--timeout passes first).");
  j_wait->add_option("--timeout", a->timeout, "give up after this long (30s, 5m)");
  return {job, [a, job](const CliContext& ctx) {
            for (auto* sub : job->get_subcommands()) a->action = sub->get_name();
            return cmd_job(ctx, *a);
          }};
}

Subcommand make_serve(CLI::App& parent, const Dashes&) {
  auto a = std::make_shared<ServeArgs>();
  auto* serve = parent.add_subcommand(
      "serve",
      "JSON-RPC 2.0 server for agent harnesses, one object per line on stdin/stdout; "  // SRV-1
      "see docs/protocol.md.");
  serve->add_option("--max-in-flight", a->max_in_flight, "requests running at once (default 32)");
  return {serve, [a](const CliContext&) { return serve_main(*a); }};
}

Subcommand make_mcp(CLI::App& parent, const Dashes&) {
  struct State {
    McpArgs args;
    bool allow_network = false, allow_command = false, allow_credential_read = false,
         allow_write_outside = false, allow_protected_write = false;
    std::string timeout;
  };
  auto s = std::make_shared<State>();
  auto* mcp = parent.add_subcommand(
      "mcp",
      "Model Context Protocol server over stdio: tools bash, bash_output, kill_bash, "  // SRV-2
      "bash_write (its background jobs), read_file, write_file, edit_file, search. Questions go "
      "to the user by MCP elicitation; for a client without it, the --allow-* options approve a "
      "kind of request for the whole session. Nothing approves outside_sandbox in advance.");
  mcp->add_option("--project", s->args.project,
                  "project root (default: the git top-level of the working folder)");
  mcp->add_option("--session", s->args.session, "use this lasting session");  // SES-1
  mcp->add_flag("--away", s->args.away, "the user is not watching: refuse whatever would ask");
  mcp->add_flag("--allow-network", s->allow_network,
                "approve `network: true` for every command of this session");
  mcp->add_flag("--allow-command", s->allow_command,
                "approve commands the command policy says need approval (mode off/external)");
  mcp->add_flag("--allow-credential-read", s->allow_credential_read,
                "approve reading credential files (.env, *.pem, ...) with read_file");
  mcp->add_flag("--allow-write-outside", s->allow_write_outside,
                "approve file-tool writes outside the project and the writable folders");
  mcp->add_flag("--allow-protected-write", s->allow_protected_write,
                "approve file-tool writes to protected paths (.envrc, .vscode/, Makefile, ...)");
  mcp->add_option("--max-in-flight", s->args.max_in_flight,
                  "tool calls running at once (default 32)");
  mcp->add_option("--timeout", s->timeout,
                  "end a `bash` call that gives no timeout_ms after this long (default 10m; 0: "
                  "never), since some clients never cancel a call they gave up on");
  return {mcp, [s](const CliContext& ctx) {
            if (auto st = mcp_durations(ctx, s->timeout, s->args); st != 0) return st;
            if (s->allow_network) s->args.allow.insert(AskKind::kNetwork);
            if (s->allow_command) s->args.allow.insert(AskKind::kCommand);
            if (s->allow_credential_read) s->args.allow.insert(AskKind::kCredentialRead);
            if (s->allow_write_outside) s->args.allow.insert(AskKind::kWriteOutside);
            if (s->allow_protected_write) s->args.allow.insert(AskKind::kProtectedWrite);
            return mcp_main(s->args);
          }};
}

Subcommand make_classify(CLI::App& parent, const Dashes& dashes) {
  struct State {
    ClassifyArgs args;
    std::string line;
  };
  auto s = std::make_shared<State>();
  auto* classify = parent.add_subcommand(
      "classify",
      "Say whether a command only reads, needs approval or is denied.\n"  // CMD-6
      "  cordon classify -- git status\n"
      "  cordon classify -c 'grep -rn TODO src | head'\n"
      "  cordon classify --json -- rm -rf /");
  classify->add_flag("--json", s->args.json,
                     "print {\"class\", \"reason\", \"word\", \"rule\"} as JSON");
  classify->add_flag("--network", s->args.network,
                     "the command would get the network (never read-only)");
  classify->add_option("-c", s->line, "a shell command line to classify");
  classify->prefix_command();  // the command after `--` is cut off before parsing, as for run
  return {classify, [s, classify, &dashes](const CliContext& ctx) {
            if (classify->count("-c")) s->args.script = s->line;
            auto words = command_words(*classify, dashes,
                                       "cordon classify [--json] (-- CMD ARGS... | -c 'LINE')");
            if (!words) return kExitRefused;
            s->args.command = std::move(*words);
            return cmd_classify(ctx, s->args);
          }};
}

Subcommand make_setup(CLI::App& parent, const Dashes&) {
  struct State {
    bool print = false;
    bool client_print = false;
    std::string client_project_dir;
    std::vector<CLI::App*> clients;
    std::vector<CLI::Option*> client_project;
  };
  auto s = std::make_shared<State>();
  auto* setup = parent.add_subcommand(
      "setup", "Set this machine, or a coding agent, up for the sandbox.");  // DIST-4
  setup->require_subcommand(1);
  auto* setup_apparmor = setup->add_subcommand(
      "apparmor",
      "Print the AppArmor profile that lets bwrap create user namespaces where AppArmor "
      "restricts them (Ubuntu 23.10 and later), and how to install it; run as root, write it "
      "to /etc/apparmor.d/bwrap and load it.\n"  // PROBE-4
      "  cordon setup apparmor | sudo tee /etc/apparmor.d/bwrap\n"
      "  sudo cordon setup apparmor");
  setup_apparmor->add_flag("--print", s->print,
                           "only print the profile and the commands, even when run as root");
  // DIST-4: one subcommand per coding agent.
  for (const char* name : {"claude-code", "codex", "gemini", "cursor", "vscode", "zed"}) {
    auto* sc = setup->add_subcommand(
        name, std::string("Register `cordon mcp` with ") + name +
                  " and turn its own shell tool off where it allows that (see "
                  "docs/integrations.md). Settings files are only added to, backed up first.");
    sc->add_flag("--print", s->client_print, "show exactly what would be done; change nothing");
    // DIST-4: `--project` alone, or `--project DIR` as `run` and `policy` take it.
    s->client_project.push_back(
        sc->add_option("--project", s->client_project_dir,
                       "the project's own settings, not the user's: DIR, or without it the git "
                       "top-level of this folder")
            ->expected(0, 1));
    s->clients.push_back(sc);
  }
  return {setup, [s, setup_apparmor](const CliContext& ctx) {
            if (setup_apparmor->parsed()) return cmd_setup_apparmor(ctx, s->print);
            for (size_t i = 0; i < s->clients.size(); ++i)
              if (s->clients[i]->parsed())
                return cmd_setup_client(ctx, s->clients[i]->get_name(), s->client_print,
                                        s->client_project[i]->count() > 0, s->client_project_dir);
            return 0;
          }};
}

Subcommand make_hook(CLI::App& parent, const Dashes&) {
  auto client = std::make_shared<std::string>();
  auto* hook = parent.add_subcommand(
      "hook",
      "Answer a coding agent's pre-tool hook: reads its hook JSON on stdin and answers with the "
      "shell command wrapped in `cordon run` (see docs/integrations.md). Exit status 2 "  // DIST-4
      "blocks the command. A hook is a convenience, not a boundary.\n"
      "  settings: \"command\": \"cordon hook claude-code\"");
  hook->add_option("client", *client, "claude-code, codex, gemini, cursor or vscode")->required();
  return {hook, [client](const CliContext& ctx) { return cmd_hook(ctx, *client); }};
}

Subcommand make_version(CLI::App& parent, const Dashes&) {
  auto* version = parent.add_subcommand(
      "version", "Print cordon's version and commit, the bwrap found and the backend.");  // DIST-3
  return {version, [](const CliContext& ctx) {
            std::printf("%s\n", version_text(ctx).c_str());
            return 0;
          }};
}

}  // namespace

const std::vector<SubcommandEntry>& subcommands() {
  static const std::vector<SubcommandEntry> all = {
      {"run", make_run},       {"probe", make_probe},       {"policy", make_policy},
      {"review", make_review}, {"cache", make_cache},       {"session", make_session},
      {"log", make_log},       {"job", make_job},           {"serve", make_serve},
      {"mcp", make_mcp},       {"classify", make_classify}, {"setup", make_setup},
      {"hook", make_hook},     {"version", make_version}};
  return all;
}

}  // namespace cordon
