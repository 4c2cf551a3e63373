// The decisions of one command's run that need no host (issue 15 item 4): which refusal a
// refused command gets, the notices the first command shows, which tracked files count as
// tracked (PROT-3), and the exit status a command's outcome maps to (PROC-5, RES-4).
// Session::run gathers the facts and calls these; they are unit-tested here.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/env.h"
#include "plan/facts.h"
#include "plan/plan.h"

namespace cordon {

// Every reason a command may not run, gathered before it starts. The first one in this order
// is the one the caller gets, whatever order they were found in: the face's command policy
// (CMD-4: what the user or agent set is named over anything the sandbox says), the plan's own
// refusal, then, for a sandboxed command only, a hold left by an earlier cordon (SES-3) and a
// failed probe (MODE-4).
struct RefusalCandidates {
  std::optional<Refusal> command_policy;
  std::optional<Refusal> plan;
  std::optional<Refusal> hold;
  std::optional<Refusal> probe;
  bool sandboxed = false;
};
std::optional<Refusal> first_refusal(const RefusalCandidates& c);

// ENV-4: whether the plan strips variables a start notice should name.
bool strips_variables(const Plan& plan);

// The start notices (composed once, for the first command, `initialize` and `cordon session
// start`): the plan's notices, its warnings and `extra_warnings` ("warning: ..."), then the
// ENV-4 list of stripped variables when `say_stripped` and the plan strips any.
std::vector<std::string> start_notices(const Plan& plan, bool say_stripped,
                                       const std::vector<std::string>& extra_warnings = {},
                                       const std::vector<std::string>& unsaid = {});

// ENV-4 (issue 28): the stripped names the notice leaves unsaid: the provider key of the coding
// agent cordon runs under, which every agent has and knows about (still stripped). Claude Code
// sets CLAUDECODE=1 for its commands, Gemini CLI GEMINI_CLI=1, Codex its CODEX_* variables.
std::vector<std::string> agents_own_keys(const EnvMap& env);

// PROBE-4 (issue 28): cordon run inside another sandbox (a coding agent's own, such as Codex's),
// which refuses what cordon's sandbox needs. The evidence: Codex's CODEX_SANDBOX or
// CODEX_SANDBOX_NETWORK_DISABLED, bwrap's "Failed to create NETLINK_ROUTE socket" in
// `bwrap_words`, or `read_only_cache` (cordon's own cache folder refused a write although the
// user owns it). The sentence for the diagnosis, with the fix; "" without evidence.
std::string outer_sandbox_note(const EnvMap& env, const std::string& bwrap_words,
                               bool read_only_cache);

// PROT-3: a file counts as tracked only when it was tracked at the session's start (or its
// last resume) and still is. An ephemeral session (`persistent` false) takes what is tracked
// now; a session that could not read its tracked set (`known` false) counts none.
void keep_tracked_since_start(Facts& facts, bool persistent, bool known,
                              const std::vector<std::string>& tracked_at_start);

// What a command's end looked like, as the launcher reported it.
struct ExitFacts {
  bool timed_out = false;
  bool canceled = false;
  bool under_bwrap = false;            // bwrap ran it: bwrap's status is the command's
  int exit_code = -1;                  // of the process cordon started
  int signal = 0;                      // that killed it, or 0
  std::optional<int> bwrap_exit_code;  // from bwrap's status
};
struct ExitStatus {
  int code = 0;
  int signal = 0;  // the signal that ended the command, or 0
};
// 124 on time-out, 130 (SIGINT) on cancel; under bwrap its status (128+N for signal N,
// PROC-5), or 128+N when bwrap itself died of signal N before giving one; otherwise 128+N for
// a signal, else the exit code.
ExitStatus exit_status(const ExitFacts& f);

// RES-4: bwrap reports a command it could not start as "bwrap: execvp NAME: REASON" (on a
// line of `text`): REASON, or nullopt.
std::optional<std::string> bwrap_exec_reason(const std::string& text, const std::string& argv0);
// 127 "NAME: command not found" when the command is nowhere (`found` false; execvp says
// "Permission denied" also when a folder on PATH could not be searched), else 126.
struct ExecFailure {
  int code;
  std::string message;
};
ExecFailure exec_failure(const std::string& argv0, const std::string& reason, bool found);

}  // namespace cordon
