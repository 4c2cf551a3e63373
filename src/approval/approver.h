// The approval machine (APR-1..6) for one session or connection: modes, grants, away, the
// timeout and the breaker. Pure: time, the person and the judge are injected.
//
// How a face drives it:
//   SteadyClock clock;                       // host/steady_clock.h
//   JudgeProcess judge(policy.approvals.judge, env);   // launch/judge_process.h (auto)
//   MyAsker asker;                           // terminal prompt, approval/ask, MCP elicitation
//   Approver approver(ApproverConfig::from_policy(policy), clock, &judge, &asker);
//   if (auto s = approver.set_away(true); !s.ok()) print(s.error().message);  // --away
//   approver.begin_task();                   // a prompt, a `cordon run`, ...
//   Decision d = approver.ask({AskKind::kNetwork, "npm install", {}, "fetch dependencies"});
//   if (!d.allowed) refuse(d.message);       // SRV-1: data.reason "refused", message d.message
//   if (d.end_task) stop_the_task();         // APR-6: a timeout after the breaker tripped
//   approver.end_task();
//
// Thread-safe: several asks may be in flight at once (SRV-4). The lock is never held while the
// judge runs or the person is asked.
#pragma once

#include <chrono>
#include <cstdint>
#include <mutex>
#include <optional>
#include <set>
#include <string>

#include "approval/clock.h"
#include "approval/judge.h"
#include "approval/request.h"
#include "config/policy.h"
#include "core/result.h"

namespace cordon {

// The breaker (APR-6): while away, this many refusals in a row, or this many across one away
// stretch, end away.
inline constexpr int kBreakerInARow = 3;
inline constexpr int kBreakerPerStretch = 20;

// What decided, for logs and faces; `Decision::allowed` says which way.
enum class Basis {
  kUser,         // the person answered (allow or deny)
  kGrant,        // a session grant covered it
  kApproveAll,   // approve-all: approved, or outside_sandbox refused (APR-2)
  kJudge,        // the judge allowed (risk within the cutoff) or denied (APR-2)
  kAway,         // refused: it would have asked, and the user is away (APR-4)
  kTimeout,      // refused: the question was not answered in time (APR-5, APR-6)
  kTaskEnded,    // refused: this task was ended by a timeout after a trip (APR-6)
  kNobodyToAsk,  // refused: the face could not ask anyone (APR-7)
  kEscapeNever,  // refused: [sandbox] escape = "never" (NET-5)
  kPreapproved,  // approved: the user approved this kind when starting the face (`cordon mcp
                 // --allow-network`); never outside_sandbox (APR-3)
  kCanceled,     // refused: the request was canceled while its question was open (withdrawn)
};
const char* to_string(Basis basis);  // "user", "grant", "approve-all", ...

struct Decision {
  bool allowed = false;
  Basis basis = Basis::kUser;
  // For the caller (the agent): why it was refused and what to do next. SRV-1 puts it in the
  // JSON-RPC error message of a refused exec.
  std::string message;
  // AUD-2: a refusal's two halves, which `message` is made of: why (the rule, "the user is
  // away and cannot approve it") and what to do ("Keep going with what needs no approval, ...").
  std::string rule, fix;
  // This refusal tripped the breaker: away has ended; tell the person (APR-6).
  bool breaker_tripped = false;
  // This timeout made the rest of the task run away; tell the person (APR-5).
  bool away_started = false;
  // The face must end the current task: a question timed out after a trip (APR-6).
  bool end_task = false;
  // The judge's risk, when the judge decided (Basis::kJudge), for the audit log (AUD-1).
  std::optional<double> risk;
};

struct ApproverConfig {
  ApprovalMode mode = ApprovalMode::kManual;
  double cutoff = 0.2;       // [approvals] cutoff: judge risk above it becomes ask
  double away_cutoff = 0.2;  // [approvals] away_cutoff: the same while away or after a trip
  // [away] timeout; nullopt ("off") means questions wait with no limit.
  std::optional<std::chrono::milliseconds> timeout = std::chrono::minutes(15);
  EscapeMode escape = EscapeMode::kAsk;  // [sandbox] escape
  // Kinds the user approved in advance for the whole session, when starting the face (an
  // option such as `cordon mcp --allow-network`): approved without a question, whatever the
  // mode, even while away, since the user is not being asked. outside_sandbox is never taken
  // (APR-3: a person decides each call). escape = "never" and an ended task still refuse.
  // Empty: nothing approved in advance.
  std::set<AskKind> preapproved;

  static ApproverConfig from_policy(const Policy& policy);
};

// A snapshot, for status lines and tests.
struct ApproverState {
  bool away = false;            // user_away || timeout_away
  bool user_away = false;       // set_away(true), until set_away(false) or a trip
  bool timeout_away = false;    // a question timed out; until the task ends (APR-5)
  bool tripped = false;         // the breaker tripped in this task (APR-6)
  bool task_ended = false;      // a timeout after a trip ended this task (APR-6)
  int refusals_in_a_row = 0;    // while away; an approval resets it
  int refusals_in_stretch = 0;  // since away began
  size_t grants = 0;
  uint64_t task = 0;
};

class Approver {
 public:
  // `clock` must outlive the approver, as must `judge` and `asker` when given. `judge` may be
  // null (then auto mode treats every request as a failed judge: ask); `asker` may be null
  // (then every question is refused as kUnavailable).
  Approver(ApproverConfig config, const Clock& clock, Judge* judge, Asker* asker);
  Approver(const Approver&) = delete;
  Approver& operator=(const Approver&) = delete;

  // Decides one request: start(), the judge when needed, the person when needed, on_answer().
  // Blocks while the judge runs or the person is asked; never throws.
  // `cancel_fd`: readable once the request that asks is canceled (Question::cancel_fd).
  Decision ask(const ApprovalRequest& request, int cancel_fd = -1);

  // Going away (APR-4). Turning it on under approve-all is refused (an Error with code
  // "refused"). Turning it off also ends an away that a timeout started (the user is back).
  Status set_away(bool on);
  bool away() const;

  // Task bounds (APR-5, APR-6): a timeout's away, a trip and an ended task last until the task
  // ends. Both calls close the current task's scope and open a fresh one; a face without tasks
  // calls neither, and the session is one task. User away and session grants carry over.
  void begin_task();
  void end_task();

  ApproverState state() const;
  const ApproverConfig& config() const { return config_; }

  // The same machine in steps, for a face that does not block on the judge or the person:
  //   Step s = start(req);
  //   if (s.next == Step::Next::kJudge) s = on_verdict(s, verdict_for(s.request));
  //   if (s.next == Step::Next::kPerson) decision = on_answer(s, answer_to(s.question));
  //   else decision = s.decision;
  // Each call takes the lock briefly; the state may change between steps (another ask times
  // out, the user goes away), and each step decides with the state as it is then.
  struct Step {
    enum class Next { kDone, kJudge, kPerson };
    Next next = Next::kDone;
    Decision decision;        // when kDone
    ApprovalRequest request;  // always
    Question question;        // when kPerson
    uint64_t task = 0;        // the task that asked (APR-5, APR-6: a late answer to an
                              // ended task's question is refused)
  };
  Step start(const ApprovalRequest& request);
  Step on_verdict(const Step& step, const JudgeVerdict& verdict);
  Decision on_answer(const Step& step, const PersonAnswer& answer);

 private:
  bool away_locked() const { return user_away_ || timeout_away_; }
  Step done(const ApprovalRequest& request, Decision decision) const;
  Step to_person_locked(const ApprovalRequest& request, std::string judge_note, bool grantable);
  Decision refuse_away_locked(const ApprovalRequest& request, const std::string& judge_note);
  void count_refusal_locked(Decision& d);
  void note_approval_locked();
  void reset_counts_locked();
  void new_task_locked();
  Decision task_ended_locked(const ApprovalRequest& request) const;

  const ApproverConfig config_;
  const Clock& clock_;
  Judge* const judge_;
  Asker* const asker_;

  mutable std::mutex mu_;
  bool user_away_ = false;
  bool timeout_away_ = false;
  bool tripped_ = false;
  bool task_ended_ = false;
  int in_a_row_ = 0;
  int in_stretch_ = 0;
  uint64_t task_ = 1;
  std::set<std::string> grants_;  // grant keys: kind, command and path
};

}  // namespace cordon
