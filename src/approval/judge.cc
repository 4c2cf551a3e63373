#include "approval/judge.h"

#include <fmt/format.h>

#include <cmath>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <vector>

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
  nlohmann::json j = to_ask_params(r);
  j.erase("reason");  // the agent's words: a judge that reads them can be argued with
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

namespace {

// JSON's own whitespace (RFC 8259): nothing else may surround the answer.
bool json_blank(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

// Exactly one JSON object and nothing else: nlohmann's parser would stop at a NUL byte, skip a
// byte order mark, and keep the last of two equal keys, so those are refused first.
std::optional<nlohmann::json> one_object(std::string_view out) {
  size_t b = 0, e = out.size();
  while (b < e && json_blank(out[b])) ++b;
  while (e > b && json_blank(out[e - 1])) --e;
  std::string_view body = out.substr(b, e - b);
  if (body.size() < 2 || body.front() != '{' || body.back() != '}' ||
      body.find('\0') != std::string_view::npos)
    return std::nullopt;
  bool duplicate = false;
  std::vector<std::set<std::string>> keys;
  auto cb = [&](int depth, nlohmann::json::parse_event_t ev, nlohmann::json& parsed) {
    using E = nlohmann::json::parse_event_t;
    if (ev == E::object_start) keys.emplace_back();
    if (ev == E::object_end && !keys.empty()) keys.pop_back();
    if (ev == E::key && !keys.empty() && !keys.back().insert(parsed.get<std::string>()).second)
      duplicate = true;
    (void)depth;
    return true;
  };
  try {
    nlohmann::json j = nlohmann::json::parse(body, cb);
    if (duplicate || !j.is_object()) return std::nullopt;
    return j;
  } catch (const nlohmann::json::exception&) {
    return std::nullopt;
  }
}

}  // namespace

JudgeVerdict parse_judge_output(std::string_view out) {
  if (trim(out).empty()) return JudgeVerdict::failed("the judge printed nothing");
  std::optional<nlohmann::json> parsed = one_object(out);
  if (!parsed) {
    bool other_value = false;  // valid JSON, but an array, a string, ...
    try {
      other_value = !nlohmann::json::parse(out).is_object();
    } catch (const nlohmann::json::exception&) {
    }
    return JudgeVerdict::failed(
        fmt::format("the judge printed \"{}\", which is {}", excerpt(out),
                    other_value ? "not a JSON object" : "not one JSON object and nothing else"));
  }
  const nlohmann::json& j = *parsed;
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
