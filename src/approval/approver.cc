#include "approval/approver.h"

#include <fmt/format.h>

#include <cctype>
#include <utility>

#include "core/duration.h"

namespace cordon {

namespace {

// "network access for `x`" -> "Network access for `x`".
std::string sentence(std::string phrase) {
  if (!phrase.empty())
    phrase[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(phrase[0])));
  return phrase;
}

constexpr const char* kKeepGoing =
    "Keep going with what needs no approval, and name the skipped step in your final report.";
constexpr const char* kStopHere = "Stop here and report what you did and what is left.";
constexpr const char* kDoNotRetry =
    "Do not retry it; carry on without it, and name the skipped step in your final report.";

std::string with_note(const std::string& note) {
  return note.empty() ? std::string() : fmt::format(" ({})", note);
}

std::string timeout_text(const std::optional<std::chrono::milliseconds>& t) {
  return t ? format_duration(*t) : std::string("the time allowed");
}

Decision approve(Basis basis, std::string message) {
  Decision d;
  d.allowed = true;
  d.basis = basis;
  d.message = std::move(message);
  return d;
}

// A refusal: "<what> was refused: <rule>. <fix>", its rule and fix kept apart too (AUD-2).
Decision refuse(Basis basis, const ApprovalRequest& r, std::string rule, std::string fix) {
  Decision d;
  d.allowed = false;
  d.basis = basis;
  d.message = fmt::format("{} was refused: {}. {}", sentence(describe(r)), rule, fix);
  d.rule = std::move(rule);
  d.fix = std::move(fix);
  return d;
}

// A refusal whose message is worded otherwise ("... was denied by the user. <fix>").
Decision refuse_as(Basis basis, std::string message, std::string rule, std::string fix) {
  Decision d;
  d.allowed = false;
  d.basis = basis;
  d.message = std::move(message);
  d.rule = std::move(rule);
  d.fix = std::move(fix);
  return d;
}

}  // namespace

const char* to_string(Basis basis) {
  switch (basis) {
    case Basis::kUser:
      return "user";
    case Basis::kGrant:
      return "grant";
    case Basis::kApproveAll:
      return "approve-all";
    case Basis::kJudge:
      return "judge";
    case Basis::kAway:
      return "away";
    case Basis::kTimeout:
      return "timeout";
    case Basis::kTaskEnded:
      return "task-ended";
    case Basis::kNobodyToAsk:
      return "nobody-to-ask";
    case Basis::kEscapeNever:
      return "escape-never";
    case Basis::kCanceled:
      return "canceled";
    case Basis::kPreapproved:
      return "preapproved";
  }
  return "?";
}

ApproverConfig ApproverConfig::from_policy(const Policy& p) {
  ApproverConfig c;
  c.mode = p.approvals.mode;
  c.cutoff = p.approvals.cutoff;
  c.away_cutoff = p.approvals.away_cutoff;
  c.timeout = p.away_timeout;
  c.escape = p.escape;
  return c;
}

Approver::Approver(ApproverConfig config, const Clock& clock, Judge* judge, Asker* asker)
    : config_(std::move(config)), clock_(clock), judge_(judge), asker_(asker) {}

Decision Approver::ask(const ApprovalRequest& request, int cancel_fd) {
  Step s = start(request);
  s.question.cancel_fd = cancel_fd;
  if (s.next == Step::Next::kJudge) {
    JudgeVerdict v = judge_ ? judge_->judge(request)
                            : JudgeVerdict::failed("no judge program is set ([approvals] judge)");
    s = on_verdict(s, v);
  }
  if (s.next == Step::Next::kPerson) {
    PersonAnswer a = asker_
                         ? asker_->ask(s.question)
                         : PersonAnswer{Reply::kUnavailable, "nobody can be asked to approve it"};
    return on_answer(s, a);
  }
  return s.decision;
}

Approver::Step Approver::done(const ApprovalRequest& request, Decision decision) const {
  Step s;
  s.next = Step::Next::kDone;
  s.decision = std::move(decision);
  s.request = request;
  s.task = task_;
  return s;
}

Decision Approver::task_ended_locked(const ApprovalRequest& r) const {
  return refuse(Basis::kTaskEnded, r,
                "this task has ended, because a question went unanswered after the breaker "
                "tripped",
                kStopHere);
}

Approver::Step Approver::start(const ApprovalRequest& r) {
  std::lock_guard<std::mutex> lock(mu_);
  if (task_ended_) return done(r, task_ended_locked(r));
  // A host beyond the allowlist (NET-10) is a way out too: escape = "never" refuses it.
  const bool way_out = r.kind == AskKind::kNetwork || r.kind == AskKind::kOutsideSandbox ||
                       r.kind == AskKind::kNetworkHost;
  // NET-5: not an approval refusal, so it never counts toward the breaker.
  if (way_out && config_.escape == EscapeMode::kNever)
    return done(r, refuse(Basis::kEscapeNever, r,
                          "[sandbox] escape = \"never\" in the user's config removes the "
                          "network and outside_sandbox ways out",
                          "Carry on inside the sandbox, and name the skipped step in your final "
                          "report."));
  if (r.kind != AskKind::kOutsideSandbox && config_.preapproved.count(r.kind))
    return done(r, approve(Basis::kPreapproved,
                           fmt::format("approved in advance by the user for this session ({})",
                                       to_string(r.kind))));
  if (r.kind == AskKind::kOutsideSandbox) {
    // APR-2: approve-all never approves it, and assumes nobody is there to ask.
    if (config_.mode == ApprovalMode::kApproveAll)
      return done(r, refuse(Basis::kApproveAll, r,
                            "under approve-all nothing runs outside the sandbox",
                            "Carry on without it, and name the skipped step in your final "
                            "report."));
    // APR-3: no judge, no grant; a person, for this one call.
    return to_person_locked(r, "", /*grantable=*/false);
  }
  if (config_.mode == ApprovalMode::kApproveAll)
    return done(r, approve(Basis::kApproveAll, "approved automatically (approve-all)"));
  // APR-4: grants made before leaving do not apply while away.
  if (!away_locked() && grants_.count(grant_key(r)))
    return done(r, approve(Basis::kGrant, "approved by a grant for this session"));
  if (config_.mode == ApprovalMode::kAuto) {
    Step s;
    s.next = Step::Next::kJudge;
    s.request = r;
    s.task = task_;
    return s;
  }
  return to_person_locked(r, "", /*grantable=*/true);
}

Approver::Step Approver::on_verdict(const Step& step, const JudgeVerdict& v) {
  std::lock_guard<std::mutex> lock(mu_);
  const ApprovalRequest& r = step.request;
  if (task_ended_ && step.task == task_) return done(r, task_ended_locked(r));
  const bool away = away_locked();
  // APR-4, APR-6: the away cutoff while away, and for the rest of a task that tripped.
  const bool away_cut = away || tripped_;
  const double cutoff = away_cut ? config_.away_cutoff : config_.cutoff;
  const char* cutoff_name = away_cut ? "away cutoff" : "cutoff";
  // A verdict without a problem but also without a risk is as good as no answer.
  const bool answered = v.problem.empty() && v.risk.has_value();
  if (answered && v.decision == JudgeDecision::kDeny) {
    Decision d = refuse_as(
        Basis::kJudge,
        fmt::format("{} was refused by the judge (risk {}). {}", sentence(describe(r)), *v.risk,
                    kDoNotRetry),
        fmt::format("the approval judge refused it (risk {})", *v.risk), kDoNotRetry);
    d.risk = v.risk;
    if (away) count_refusal_locked(d);
    return done(r, std::move(d));
  }
  if (answered && v.decision == JudgeDecision::kAllow && *v.risk <= cutoff) {
    note_approval_locked();
    Decision d = approve(Basis::kJudge, fmt::format("approved by the judge (risk {}, {} {})",
                                                    *v.risk, cutoff_name, cutoff));
    d.risk = v.risk;  // AUD-1
    return done(r, std::move(d));
  }
  std::string note;
  if (!answered)
    note = v.problem.empty() ? "the judge gave no risk" : v.problem;
  else if (v.decision == JudgeDecision::kAsk)
    note = fmt::format("the judge asked for a person, risk {}", *v.risk);
  else
    note = fmt::format("the judge's risk {} is above the {} {}", *v.risk, cutoff_name, cutoff);
  return to_person_locked(r, std::move(note), /*grantable=*/true);
}

Approver::Step Approver::to_person_locked(const ApprovalRequest& r, std::string judge_note,
                                          bool grantable) {
  // APR-4: while away, anything that would ask is refused.
  if (away_locked()) return done(r, refuse_away_locked(r, judge_note));
  Step s;
  s.next = Step::Next::kPerson;
  s.request = r;
  s.task = task_;
  s.question.request = r;
  s.question.session_grant_offered = grantable;
  if (config_.timeout) s.question.deadline = clock_.now() + *config_.timeout;
  s.question.judge_note = std::move(judge_note);
  return s;
}

Decision Approver::refuse_away_locked(const ApprovalRequest& r, const std::string& judge_note) {
  Decision d = refuse(Basis::kAway, r,
                      fmt::format("the user is away and cannot approve it{}", with_note(judge_note)),
                      kKeepGoing);
  count_refusal_locked(d);
  return d;
}

Decision Approver::on_answer(const Step& step, const PersonAnswer& a) {
  std::lock_guard<std::mutex> lock(mu_);
  const Question& q = step.question;
  const ApprovalRequest& r = q.request;
  const bool this_task = step.task == task_;
  if (this_task && task_ended_) return task_ended_locked(r);
  Reply reply = a.reply;
  // APR-5: the question waits until its deadline; an answer at or after it comes too late.
  if ((reply == Reply::kAllowOnce || reply == Reply::kAllowForSession || reply == Reply::kDeny) &&
      q.deadline && clock_.now() >= *q.deadline)
    reply = Reply::kTimeout;
  switch (reply) {
    case Reply::kAllowOnce:
    case Reply::kAllowForSession: {
      // APR-3: outside_sandbox is never granted beyond this call.
      if (reply == Reply::kAllowForSession && r.kind != AskKind::kOutsideSandbox)
        grants_.insert(grant_key(r));
      note_approval_locked();
      return approve(Basis::kUser,
                     reply == Reply::kAllowForSession && r.kind != AskKind::kOutsideSandbox
                         ? "approved by the user for this session"
                         : "approved by the user");
    }
    case Reply::kDeny: {
      const char* fix =
          "Do not retry it; carry on without it, or ask the user how they want to proceed.";
      Decision d = refuse_as(Basis::kUser,
                             fmt::format("{} was denied by the user. {}", sentence(describe(r)), fix),
                             "the user denied it", fix);
      if (away_locked()) count_refusal_locked(d);
      return d;
    }
    case Reply::kUnavailable:
      // The face's note says why nobody can be asked and what to do (MCP: no elicitation).
      return refuse_as(Basis::kNobodyToAsk,
                       fmt::format("{} was refused: {}.", sentence(describe(r)),
                                   a.note.empty() ? "nobody can be asked to approve it" : a.note),
                       "nobody can be asked to approve it", a.note.empty() ? kKeepGoing : a.note);
    case Reply::kCanceled:  // neither a yes nor a no: no breaker, no away
      return refuse_as(Basis::kCanceled,
                    fmt::format("{} was canceled before it ran; its question was withdrawn.",
                                sentence(describe(r))),
                       "its question was withdrawn", "");
    case Reply::kTimeout:
      break;
  }
  const std::string waited = timeout_text(config_.timeout);
  if (!this_task)  // the task that asked is over; its timeout does not send the new one away
    return refuse(Basis::kTimeout, r, fmt::format("the user did not answer within {}", waited),
                  kKeepGoing);
  if (tripped_) {
    // APR-6: after a trip, a timeout ends the task instead of restarting away.
    task_ended_ = true;
    Decision d = refuse(Basis::kTimeout, r,
                        fmt::format("the user did not answer within {} after the breaker "
                                    "tripped, so this task has ended",
                                    waited),
                        kStopHere);
    d.end_task = true;
    return d;
  }
  Decision d = refuse(Basis::kTimeout, r,
                      fmt::format("the user did not answer within {}, so they are treated as "
                                  "away for the rest of this task",
                                  waited),
                      kKeepGoing);
  if (!away_locked()) {
    // APR-5: the rest of the task runs away; the stretch starts with this refusal.
    reset_counts_locked();
    timeout_away_ = true;
    d.away_started = true;
  }
  count_refusal_locked(d);
  return d;
}

void Approver::count_refusal_locked(Decision& d) {
  if (!away_locked()) return;
  ++in_a_row_;
  ++in_stretch_;
  const bool row = in_a_row_ >= kBreakerInARow;
  if (!row && in_stretch_ < kBreakerPerStretch) return;
  // APR-6: away ends; the next ask waits for the user as an ordinary question.
  d.breaker_tripped = true;
  const std::string tripped = fmt::format(
      " That makes {} while the user is away, so the breaker tripped: away has ended, and the "
      "next request will wait for the user's answer.",
      row ? fmt::format("{} refusals in a row", in_a_row_)
          : fmt::format("{} refusals since the user went away", in_stretch_));
  d.message += tripped;
  d.fix += tripped;
  user_away_ = false;
  timeout_away_ = false;
  tripped_ = true;
  reset_counts_locked();
}

void Approver::note_approval_locked() {
  // APR-6: an approval while away breaks a run of refusals (not the stretch's total).
  if (away_locked()) in_a_row_ = 0;
}

void Approver::reset_counts_locked() {
  in_a_row_ = 0;
  in_stretch_ = 0;
}

Status Approver::set_away(bool on) {
  std::lock_guard<std::mutex> lock(mu_);
  if (on) {
    if (config_.mode == ApprovalMode::kApproveAll)
      return make_error(ErrorKind::kRefused,
                        "Going away is refused under approve-all: approve-all already "  // APR-4
                        "approves everything but outside_sandbox. Use mode \"manual\" or "
                        "\"auto\" to go away.");
    // The counts are zero whenever nobody is away (every way out of away resets them), so a
    // new stretch starts from zero and saying "away" while away continues the stretch.
    user_away_ = true;
  } else {
    user_away_ = false;
    timeout_away_ = false;
    reset_counts_locked();
  }
  return ok_status();
}

bool Approver::away() const {
  std::lock_guard<std::mutex> lock(mu_);
  return away_locked();
}

void Approver::new_task_locked() {
  ++task_;
  tripped_ = false;
  task_ended_ = false;
  if (timeout_away_) {
    timeout_away_ = false;
    if (!user_away_) reset_counts_locked();
  }
}

void Approver::begin_task() {
  std::lock_guard<std::mutex> lock(mu_);
  new_task_locked();
}

void Approver::end_task() {
  std::lock_guard<std::mutex> lock(mu_);
  new_task_locked();
}

ApproverState Approver::state() const {
  std::lock_guard<std::mutex> lock(mu_);
  ApproverState s;
  s.away = away_locked();
  s.user_away = user_away_;
  s.timeout_away = timeout_away_;
  s.tripped = tripped_;
  s.task_ended = task_ended_;
  s.refusals_in_a_row = in_a_row_;
  s.refusals_in_stretch = in_stretch_;
  s.grants = grants_.size();
  s.task = task_;
  return s;
}

}  // namespace cordon
