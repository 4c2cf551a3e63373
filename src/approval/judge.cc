#include "approval/judge.h"

#include <fmt/format.h>

#include <cmath>
#include <nlohmann/json.hpp>

#include "core/duration.h"
#include "core/strings.h"

namespace cordon {

namespace {

// A short, printable excerpt of what a program wrote, for a problem message.
std::string excerpt(std::string_view text, size_t max = 200) {
  std::string t = trim(text);
  bool cut = t.size() > max;
  if (cut) t.resize(max);
  for (char& c : t)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = ' ';
  return cut ? t + "..." : t;
}

std::string last_line(std::string_view err) {
  std::string t = trim(err);
  auto nl = t.rfind('\n');
  return excerpt(nl == std::string::npos ? t : t.substr(nl + 1));
}

}  // namespace

const char* to_string(JudgeDecision d) {
  switch (d) {
    case JudgeDecision::kAllow:
      return "allow";
    case JudgeDecision::kAsk:
      return "ask";
    case JudgeDecision::kDeny:
      return "deny";
  }
  return "?";
}

std::string judge_input(const ApprovalRequest& r) {
  nlohmann::json j = nlohmann::json::object();
  j["kind"] = to_string(r.kind);
  if (r.command) j["command"] = *r.command;
  if (r.path) j["path"] = *r.path;
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

JudgeVerdict parse_judge_output(std::string_view out) {
  if (trim(out).empty()) return JudgeVerdict::failed("the judge printed nothing");
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(out);
  } catch (const nlohmann::json::exception&) {
    return JudgeVerdict::failed(
        fmt::format("the judge printed \"{}\", which is not one JSON object", excerpt(out)));
  }
  if (!j.is_object())
    return JudgeVerdict::failed(
        fmt::format("the judge printed \"{}\", which is not a JSON object", excerpt(out)));
  auto d = j.find("decision");
  if (d == j.end() || !d->is_string())
    return JudgeVerdict::failed("the judge's answer has no \"decision\" string");
  JudgeDecision decision;
  const std::string& ds = d->get_ref<const std::string&>();
  if (ds == "allow")
    decision = JudgeDecision::kAllow;
  else if (ds == "ask")
    decision = JudgeDecision::kAsk;
  else if (ds == "deny")
    decision = JudgeDecision::kDeny;
  else
    return JudgeVerdict::failed(fmt::format(
        "the judge's decision \"{}\" is not \"allow\", \"ask\" or \"deny\"", excerpt(ds)));
  auto r = j.find("risk");
  if (r == j.end() || !r->is_number())
    return JudgeVerdict::failed("the judge's answer has no \"risk\" number");
  double risk = r->get<double>();
  if (!std::isfinite(risk) || risk < 0.0 || risk > 1.0)
    return JudgeVerdict::failed(fmt::format("the judge's risk {} is not from 0 to 1", risk));
  return JudgeVerdict{decision, risk, ""};
}

JudgeVerdict verdict_from_run(const JudgeRun& run) {
  if (!run.start_error.empty())
    return JudgeVerdict::failed(fmt::format("the judge could not start: {}", run.start_error));
  std::string tail = last_line(run.err);
  std::string said = tail.empty() ? std::string() : fmt::format(" (it said: {})", tail);
  if (run.timed_out)
    return JudgeVerdict::failed(fmt::format("the judge did not answer within {} and was stopped",
                                            format_duration(run.timeout)));
  if (run.signal != 0)
    return JudgeVerdict::failed(
        fmt::format("the judge was ended by signal {}{}", run.signal, said));
  if (run.exit_code != 0)
    return JudgeVerdict::failed(
        fmt::format("the judge exited with status {}{}", run.exit_code, said));
  if (run.out_truncated) return JudgeVerdict::failed("the judge printed too much to be an answer");
  return parse_judge_output(run.out);
}

}  // namespace cordon
