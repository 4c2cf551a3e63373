// The CLI's commands: each turns parsed flags into a library call and prints the outcome.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "cli/context.h"

namespace cordon {

namespace api {
struct ExecRequest;
}

struct RunArgs {
  std::string project;
  std::string session;
  bool network = false;
  bool outside_sandbox = false;
  bool away = false;           // APR-4: refuse what would ask
  bool allow_command = false;  // approve a command the command policy marks needs-approval
  std::string timeout;
  std::string cwd;      // run in this folder instead of the working folder
  bool base64 = false;  // -c's script and --cwd are base64 (what `cordon hook` writes)
  bool background = false;  // issue 30: a job of the session's keeper; prints its id
  std::optional<std::string> script;
  std::vector<std::string> command;
};
int cmd_run(const CliContext& ctx, const RunArgs& args);
// Issue 30: `cordon run --session S --background`: `req` becomes a job of the session's keeper.
int cmd_run_background(const CliContext& ctx, const RunArgs& args, const api::ExecRequest& req);

// Issue 30: `cordon job list|output|write|kill|wait` on the jobs of a session's keeper.
struct JobArgs {
  std::string action;  // list, output, write, kill, wait
  std::string session;
  std::string job;
  std::optional<std::string> text;  // write: the line to write
  bool eof = false;                 // write: close the job's input after
  bool no_newline = false;          // write: TEXT without a newline after it
  bool follow = false;              // output: until the job ends
  bool all = false;                 // output: everything still held, not only what is new
  std::string signal = "KILL";      // kill
  std::string timeout;              // wait: a duration; empty: until it ends
};
int cmd_job(const CliContext& ctx, const JobArgs& args);

int cmd_probe(const CliContext& ctx, bool json);

struct PolicyArgs {
  std::string project;
  bool json = false;
  bool seatbelt = false;
};
int cmd_policy(const CliContext& ctx, const PolicyArgs& args);

// PKG-5: `cordon cache` lists; `cordon cache clean [--project DIR | --all]` removes.
struct CacheArgs {
  bool clean = false;
  bool all = false;
  std::string project;
};
int cmd_cache(const CliContext& ctx, const CacheArgs& args);

struct ReviewArgs {
  bool start = false;
  std::string project;
  std::string session;
  bool json = false;
};
int cmd_review(const CliContext& ctx, const ReviewArgs& args);

struct SessionArgs {
  std::string action;  // start, list, end, resume
  std::string id;
  std::string project;
};
int cmd_session(const CliContext& ctx, const SessionArgs& args);

// AUD-1: `cordon log [--session S] [--json] [--since TIME]` shows a session's audit log;
// `cordon log verify [--session S]` checks its hash chain and its recorded end.
struct LogArgs {
  bool verify = false;
  std::string session;  // default: CORDON_SESSION, else the log written last
  bool json = false;
  std::string since;    // an ISO time or date (UTC), or a duration ago ("2h")
};
int cmd_log(const CliContext& ctx, const LogArgs& args);

struct ClassifyArgs {
  bool json = false;
  bool network = false;
  std::optional<std::string> script;  // -c 'LINE'
  std::vector<std::string> command;   // -- CMD...
};
// CMD-6: prints read-only, needs-approval or denied, then the reason; exit 0 whatever the class.
int cmd_classify(const CliContext& ctx, const ClassifyArgs& args);

// PROBE-4: prints the AppArmor profile for bwrap and how to install it; run as root (and not
// `print_only`), writes /etc/apparmor.d/bwrap (under CORDON_SETUP_ROOT when set, for tests,
// and then never loads it) and loads it with apparmor_parser.
int cmd_setup_apparmor(const CliContext& ctx, bool print_only);

// DIST-4: registers `cordon mcp` with a coding agent (claude-code, codex, gemini, cursor,
// vscode, zed) and turns its own shell tool off where it can; `print_only` changes nothing.
int cmd_setup_client(const CliContext& ctx, const std::string& client, bool print_only,
                     bool project, const std::string& project_dir);

// DIST-4: answers a coding agent's pre-tool hook (`client`: claude-code, codex, gemini,
// cursor, vscode) with its shell command wrapped in `cordon run`; exit 2 blocks.
int cmd_hook(const CliContext& ctx, const std::string& client);

// DIST-3: cordon's version and commit, the bwrap found and its version, the backend.
std::string version_text(const CliContext& ctx);

// Prints "cordon: <message>" to stderr.
void print_error(const std::string& message);

}  // namespace cordon
