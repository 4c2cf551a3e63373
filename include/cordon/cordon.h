// libcordon's public C++ API: the same core the `cordon` CLI, `cordon serve` and `cordon mcp`
// are faces of. Open a session on a project, run commands in the sandbox, use the guarded file
// tools, classify a command line, review what changed, and answer approvals with your own
// Asker.
//
//   #include <cordon/cordon.h>
//
//   int main(int argc, char** argv) {
//     // The sandbox's start-up probe runs this program inside a sandbox as its checker.
//     if (int rc = cordon::api::helper_main(argc, argv); rc >= 0) return rc;
//
//     cordon::api::Options opts;
//     opts.project = "/home/me/src/app";
//     auto session = cordon::api::Session::open(opts);
//     if (!session) { std::cerr << session.error().message << "\n"; return 1; }
//
//     cordon::api::ExecRequest req;
//     req.command = "make test";                        // a shell command line, or set argv
//     auto res = (*session)->exec(req);
//     if (!res) { std::cerr << to_string(res.error().code) << ": " << res.error().message << "\n";
//     } else { std::cout << res->stdout_text << "exit " << res->exit_code << "\n"; }
//   }
//
// Every call that can fail returns a Result: a value, or an Error whose `code` (an ErrorCode,
// cordon/result.h) is one of
//   kRefused      a rule or a person said no (the message says why and what to do instead),
//   kHeld         the session is held until leftover processes are gone (PROC-3, SES-3),
//   kUnavailable  the sandbox (or the config, or cordon's state folder) cannot be used now,
//   kInvalid      the request itself is wrong (no command, a bad pattern, a missing file),
//   kIo           the host failed (a read or write of the file tools).
// to_string(code) gives SRV-1's word for it ("refused", ...).
// Nothing in this API throws. A Session is thread-safe: several exec and file-tool calls may
// run at once from different threads, each command in its own sandbox (SRV-4).
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cordon/approval.h"
#include "cordon/error.h"
#include "cordon/exec_result.h"
#include "cordon/job.h"
#include "cordon/policy.h"
#include "cordon/result.h"

namespace cordon::api {

using cordon::ApprovalRequest;
using cordon::Asker;
using cordon::AskKind;
using cordon::ErrorCode;
using cordon::Ok;
using cordon::PersonAnswer;
using cordon::Question;
using cordon::Reply;

// Runs the helpers cordon starts from this program (the probe's checker and the first stages
// of the allowlist proxy and of a terminal, inside a sandbox; the maker of a session's own
// loopback), when argv asks for one, and returns its exit status;
// returns -1 for an ordinary start. Call it first in main() of
// a program that embeds libcordon, or set Options::cordon_binary to an installed `cordon`.
int helper_main(int argc, char** argv);

// Ends a command early, from any thread or a signal handler.
//   cordon::api::Cancel cancel;
//   req.cancel = &cancel;
//   std::thread t([&] { auto r = session->exec(req); ... });   // r->canceled, exit 130
//   cancel.cancel();
class Cancel {
 public:
  Cancel();
  ~Cancel();
  Cancel(const Cancel&) = delete;
  Cancel& operator=(const Cancel&) = delete;
  void cancel() noexcept;  // async-signal-safe; idempotent
  bool canceled() const noexcept;
  int fd() const noexcept;  // becomes readable once canceled (for poll loops); -1 if none

 private:
  int fd_ = -1;        // a pipe's read end, never drained: readable for good once written
  int write_fd_ = -1;  // its write end
};

// How to open a session.
struct Options {
  // The project root; empty: the git top-level of `cwd`, else `cwd` itself (FS-2).
  std::string project;
  // The working folder relative paths and commands start from; empty: this process's.
  std::string cwd;
  // A lasting session's id (16 hex, or any name made of letters, digits, '-' and '_'): its
  // private /tmp and its records outlive this process (SES-1). Empty: an ephemeral session,
  // cleaned up when the Session is destroyed.
  std::string session;
  bool create_session = true;  // make a lasting session that does not exist yet
  // Refuse to open a session on a folder that is never a project (a credential folder, a system
  // folder, the home: FS-2, FS-4), so a server says so at `initialize`. Without it, each
  // sandboxed command is refused instead (the CLI: one command, one check).
  bool refuse_unsuitable_project = false;
  // SES-3, SES-4: handle the leftover records of a cordon killed mid-command before anything
  // else runs, and take a fresh tracked set. The report is in SessionInfo.
  bool resume = false;
  // APR-4: the user is not watching from the start; every question is refused. Refused under
  // approve-all (open() fails with "refused").
  bool away = false;
  // Who answers the questions of APR-1 (null: every question is refused: "nobody can be asked
  // to approve it"). Must outlive the session; called from the thread that made the request.
  Asker* asker = nullptr;
  // Kinds the user approved in advance for the whole session, such as kNetwork for a server
  // started with --allow-network: approved without a question. kOutsideSandbox is ignored
  // (APR-3: a person decides each call).
  std::vector<AskKind> preapproved;
  // The environment commands start from ("NAME=value"), before cordon strips it (ENV-1); also
  // where HOME, XDG_* and CORDON_HOME are read (CFG-1). nullopt: this process's environment.
  std::optional<std::vector<std::string>> environment;
  // The program run inside the probe's sandbox as its checker: empty means this program
  // (which then must call helper_main), else a path to the `cordon` binary.
  std::string cordon_binary;
  // Called with the config's warnings when the session opens, and with each start notice
  // (mode off, variables stripped, ...) as soon as it is known, before the first command runs
  // (and when it is refused); a command that ran has them in ExecResult::notices as well. May
  // be empty.
  std::function<void(const std::string&)> on_notice;
  // The policy, made in code with a PolicyBuilder (cordon/policy.h), in place of the user's
  // config.toml, which is then not read. nullopt: the user's config (CFG-1).
  std::optional<SandboxPolicy> policy;
  // Issue 30: background jobs (Session::start_job) running at once; one more is refused
  // ("unavailable") until one ends. Ended jobs stay listed, the last `max_jobs` of them.
  size_t max_jobs = 16;
  // Issue 30: the session's sandboxed commands and jobs share one loopback of their own, so a
  // server a job starts on 127.0.0.1 is reachable by the session's next command, and by
  // nothing else (not the machine, not another session). A command given the machine's network
  // (ExecRequest::network) is not in it. False: each command has a loopback of its own (what a
  // one-shot `cordon run` does). Where it cannot be made, each command has its own, and
  // `cordon policy` says why.
  bool session_loopback = true;
};

// The sandbox as `initialize` reports it (SRV-1).
struct SandboxStatus {
  std::string mode;        // "on", "off", "external"
  std::string backend;     // "bubblewrap", or "none" when there is no sandbox (off, external)
  bool available = false;  // commands can run now (for mode "on": the probe held)
  std::string reason;      // when not available: why, and the fix
};

struct SessionInfo {
  std::string id;       // 16 hex, or the lasting session's name
  std::string project;  // the real project root
  bool ephemeral = true;
  bool created = false;  // a lasting session made by this open()
  // SES-3 when Options::resume was set: what was found, what was moved aside, and the hold
  // that refuses commands until its cause is gone (empty: none).
  std::vector<std::string> resume_notes;
  std::vector<Moved> resume_quarantined;
  std::string hold;
};

// One command. Set either `argv` (run directly) or `command` (a shell command line, run with
// bash -c, else sh -c).
//   ExecRequest r; r.argv = {"npm", "install"}; r.network = true; r.reason = "fetch deps";
struct ExecRequest {
  std::vector<std::string> argv{};
  std::optional<std::string> command{};
  // Where it runs: absolute, or relative to the project root; empty: the session's cwd when
  // it lies in the project, else the project root. A folder outside the project means the root.
  std::string cwd{};
  bool network = false;          // way out 1 (NET-3): asks first (APR-1)
  bool outside_sandbox = false;  // way out 2 (NET-4): asks a person every time (APR-3)
  std::optional<std::chrono::milliseconds> timeout{};  // PROC-4: exit 124, timed_out
  std::optional<std::string> stdin_data{};             // nullopt: the command reads /dev/null
  size_t output_limit = 1 << 20;   // bytes kept per stream; the rest is cut (…_truncated)
  const Cancel* cancel = nullptr;  // may be null
  std::string reason{};            // the caller's words, shown with any question
  // Live output (issue 30): called on a cordon thread with each piece of output as it comes,
  // `stream` 1 (stdout) or 2 (stderr); only the bytes the result keeps (`output_limit` per
  // stream), so the pieces of each stream add up to its text in the result, which still
  // carries the whole output (unless the result takes some out afterwards: a withheld output,
  // the sandbox's own "execvp" line). Keep it short: the command's output waits while it runs.
  // Empty: none. exec() only; a job's output is Job::output().
  std::function<void(int stream, std::string_view data)> on_output{};
  // JOB-3 (issue 30): a new pseudo-terminal of the sandbox's own for the command, `cols` x `rows`
  // (1 to 10,000 each; Job::resize changes it), as its standard input, output and error: isatty
  // is true, `stty size` answers, a prompt or a REPL works through Job::write. Its output is
  // ExecResult::stdout_text (as a terminal shows it: "\r\n" line ends, input echoed);
  // stderr_text holds only what the sandbox itself says. `stdin_data` (or Job::write) is typed
  // into it, and its end (eof) is the terminal's end-of-file character, Ctrl-D. Only for a
  // command in the bubblewrap sandbox ("invalid" otherwise); the machine's own terminal is
  // never given.
  bool tty = false;
  uint16_t cols = 80;
  uint16_t rows = 24;
};

// The file tools (FILE-1..6). A read of a credential file, or a write outside the writable
// roots or to a protected path, asks first (APR-1) through the session's Asker; a refusal is an
// Error with code "refused".
struct ReadFileRequest {
  std::string path{};  // absolute, `~/...`, or relative to the cwd (in the project) or the root
  size_t offset = 1;   // first line, 1-based
  std::optional<size_t> limit{};  // lines; nullopt: to the end
  std::string reason{};           // shown with any question
};
struct ReadFileResult {
  std::string path;     // the absolute path read
  std::string content;  // the lines asked for, each with its '\n'; valid UTF-8
  size_t first_line = 1, line_count = 0, total_lines = 0;
  bool more = false;  // lines follow `content`
  uint64_t size = 0;
  size_t invalid_utf8 = 0;  // byte sequences replaced by U+FFFD
};
struct WriteFileRequest {
  std::string path{};
  std::string content{};  // replaces the file whole, atomically
  std::string reason{};
};
struct WriteFileResult {
  std::string path;
  uint64_t bytes = 0;
  bool created = false;
  std::vector<std::string> created_dirs;
};
struct EditFileRequest {
  std::string path{};
  std::string old_text{};  // must occur exactly once, unless replace_all
  std::string new_text{};
  bool replace_all = false;
  std::string reason{};
};
struct EditFileResult {
  std::string path;
  size_t replacements = 0;
};
struct SearchRequest {
  std::string pattern{};  // RE2 syntax, or text with fixed_string
  std::string path{};     // folder or file; empty: the project root
  bool fixed_string = false;
  bool ignore_case = false;
  std::string glob{};        // only files whose name matches ("*.cc"); empty: every file
  size_t max_results = 100;  // at most 1,000
};
struct SearchMatch {
  std::string path;  // project-relative inside the project, else absolute
  size_t line = 0;
  std::string text;
};
struct SearchResult {
  std::vector<SearchMatch> matches;
  bool truncated = false;
  std::string truncated_reason;
  size_t files_searched = 0;
  size_t credential_files_skipped = 0;  // FILE-4
  size_t large_files_skipped = 0;       // FILE-2
  size_t binary_files_skipped = 0;
  size_t hidden_paths_skipped = 0;
  size_t unreadable_skipped = 0;
};

// CMD-6: what the command policy says of a command line (or an argv run without a shell).
struct ClassifyRequest {
  std::vector<std::string> argv{};
  std::optional<std::string> command{};
  std::string cwd{};     // as ExecRequest::cwd
  bool network = false;  // a networked command is never read-only (CMD-3)
};
struct Classification {
  std::string cls;     // "read-only", "needs-approval" or "denied"
  std::string reason;  // which word, which rule
  std::string word;
  std::string rule;  // a stable machine word: read-only-list, sensitive-path, denied-command, ...
};

// REV-1, REV-2.
struct ReviewStarted {
  std::string commit;
  size_t ignored_files = 0;
};
struct ReviewReport {
  std::string commit;
  std::vector<std::string> replace_refs;  // refs/replace/*: stop here, loudly
  std::vector<std::string> changed;       // "M path", "D path", ...
  std::vector<std::string> added;
  std::vector<std::string> added_ignored;
  std::vector<std::string> limits;  // what the review cannot see
  std::string text;                 // the report for a person, as `cordon review` prints it
};

// One session on one project (SES-1). Thread-safe.
class Session {
 public:
  // Reads the user's config (CFG-1, CFG-2), opens or creates the session, resumes it when
  // asked, and goes away when asked. Errors: "invalid" (no such project or session),
  // "unavailable" (a broken config, an unwritable state folder), "refused" (away under
  // approve-all).
  static Result<std::unique_ptr<Session>> open(const Options& options);
  virtual ~Session() = default;

  virtual const SessionInfo& info() const = 0;

  // The start notices, now (and not again with the first command's result).
  virtual std::vector<std::string> start_notices() = 0;
  // The mode and whether commands can run; for mode "on" this runs the start-up probe once
  // (PROBE-1, about 20 ms, cached per boot).
  virtual SandboxStatus sandbox_status() = 0;

  // Runs one command: the command policy (CMD-4 denied: "refused"), the questions it needs
  // (APR-1), then the sandbox. A command that ran, whatever its exit status, is a value; a
  // refusal before it started is an Error.
  virtual Result<ExecResult> exec(const ExecRequest& request) = 0;

  // Issue 30: starts the command in the background and returns at once (cordon/job.h); it
  // then runs as exec() would, on a thread of its own, and its questions (APR-1) are put from
  // that thread. Its standard input is a pipe: `stdin_data` first, then Job::write until eof.
  // `request.cancel` is not used: Job::signal(SIGKILL) ends it, as do its `timeout` and the
  // session's end. `on_end`, when given, is called on the job's thread once it has ended.
  // Errors at once: a wrong request ("invalid"), a held session ("held"), Options::max_jobs
  // jobs running already ("unavailable"); a refusal later is the job's result().
  virtual Result<std::shared_ptr<Job>> start_job(const ExecRequest& request,
                                                 std::function<void(Job&)> on_end = {}) = 0;
  // The jobs running and the last ones ended, oldest first.
  virtual std::vector<std::shared_ptr<Job>> jobs() = 0;

  virtual Result<ReadFileResult> read_file(const ReadFileRequest& request) = 0;
  virtual Result<WriteFileResult> write_file(const WriteFileRequest& request) = 0;
  virtual Result<EditFileResult> edit_file(const EditFileRequest& request) = 0;
  virtual Result<SearchResult> search(const SearchRequest& request) = 0;

  virtual Result<Classification> classify(const ClassifyRequest& request) = 0;

  // REV-1: records the current commit and the ignored files (outside the project).
  virtual Result<ReviewStarted> review_start() = 0;
  // REV-1: what changed since review_start().
  virtual Result<ReviewReport> review() = 0;

  // CFG-6: the policy resolved for the project, as the JSON of `cordon policy --json`.
  virtual Result<std::string> policy_json() = 0;

  // APR-4: the user is (not) watching. Turning it on under approve-all is refused.
  virtual Status set_away(bool on) = 0;
  virtual bool away() const = 0;
  // APR-5, APR-6: a task's bounds (a prompt, a `cordon run`). A caller without tasks never
  // calls them: the session is then one task.
  virtual void begin_task() = 0;
  virtual void end_task() = 0;

  // Ends a lasting session: removes its private /tmp and its record (SES-1). An ephemeral
  // session ends when it is destroyed.
  virtual Status end() = 0;
};

}  // namespace cordon::api
