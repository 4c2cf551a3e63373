// The judge of mode "auto" (APR-2): an external program that reads a request as JSON on stdin
// and prints {"decision": "allow"|"ask"|"deny", "risk": 0..1}. This file holds the pure parts:
// what the judge reads, how its answer is read, and the interface the approver calls. Running
// the program lives in launch/judge_process.h.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "approval/request.h"

namespace cordon {

enum class JudgeDecision { kAllow, kAsk, kDeny };

// "allow", "ask", "deny".
const char* to_string(JudgeDecision d);

// What the judge said. Anything wrong with the judge (it could not start, crashed, timed out,
// printed something else) is a kAsk with `problem` saying what went wrong, so a failing judge
// never approves anything and, while the user is away, counts as a refusal (APR-4, APR-6).
struct JudgeVerdict {
  JudgeDecision decision = JudgeDecision::kAsk;
  std::optional<double> risk;  // 0..1, present when the judge answered properly
  std::string problem;         // empty when the judge answered properly

  static JudgeVerdict failed(std::string problem) {
    return JudgeVerdict{JudgeDecision::kAsk, std::nullopt, std::move(problem)};
  }
};

// Decides one request. Called without the approver's lock held, possibly from several threads
// at once (SRV-4); implementations must be thread-safe. Never throws.
class Judge {
 public:
  virtual ~Judge() = default;
  virtual JudgeVerdict judge(const ApprovalRequest& request) = 0;
};

// The judge's stdin: one line of JSON, to_ask_params() without "reason", newline-terminated.
// The caller's `reason` is left out on purpose: it is written by the agent being judged, and
// a judge that reads it can be argued with. Invalid UTF-8 is replaced, never an exception.
//   {kNetwork, "npm install"} -> {"command":"npm install","kind":"network"}\n
std::string judge_input(const ApprovalRequest& request);

// Reads the judge's stdout. It must be exactly one JSON object (surrounding whitespace allowed)
// with "decision" one of "allow", "ask", "deny" and "risk" a number from 0 to 1; other keys
// are ignored. Anything else is a failed verdict (kAsk with a problem).
//   R"({"decision":"allow","risk":0.05})" -> {kAllow, 0.05, ""}
//   "yes"                                 -> {kAsk, nullopt, "the judge printed ... not JSON"}
JudgeVerdict parse_judge_output(std::string_view out);

// How a judge program's run ended, as the runner saw it.
struct JudgeRun {
  std::string start_error;  // non-empty when it could not be started at all
  bool timed_out = false;
  std::chrono::milliseconds timeout{0};  // for the message
  int exit_code = -1;                    // -1 when it did not exit normally
  int signal = 0;                        // the signal that ended it, or 0
  bool out_truncated = false;
  std::string out;  // stdout
  std::string err;  // stderr (its tail is quoted in problems)
};

// The verdict for a finished run: a clean exit 0 with a well-formed answer is the answer;
// anything else is a failed verdict naming what happened.
JudgeVerdict verdict_from_run(const JudgeRun& run);

}  // namespace cordon
