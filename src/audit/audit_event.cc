#include "audit/audit_event.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "core/sha256.h"
#include "core/strings.h"

namespace cordon {

using nlohmann::json;

std::string redact(std::string text, const AuditSecrets& secrets) {
  for (const auto& [name, value] : secrets.vars) {
    if (value.size() < kShortestSecret) continue;
    const std::string mark = "[value of $" + name + "]";
    for (size_t at = text.find(value); at != std::string::npos;
         at = text.find(value, at + mark.size()))
      text.replace(at, value.size(), mark);
  }
  return text;
}

void redact_all(json& j, const AuditSecrets& secrets) {
  if (j.is_string()) {
    j = redact(j.get<std::string>(), secrets);
  } else if (j.is_structured()) {
    for (auto& v : j) redact_all(v, secrets);
  }
}

json stored_text(const std::string& text) {
  if (text.size() <= kAuditTextLimit) return text;
  return json{{"sha256", sha256_hex(text)},
              {"bytes", text.size()},
              {"start", text.substr(0, kAuditTextLimit)}};
}

namespace {

json base(const AuditCommon& c, const char* kind) {
  return json{{"event", kind}, {"time", c.time}, {"session", c.session}};
}

json answer_json(const AuditAnswer& a) {
  json j{{"asked", a.kind}, {"allowed", a.allowed}, {"by", a.by}};
  if (a.risk) j["risk"] = *a.risk;
  if (a.breaker) j["breaker"] = true;
  return j;
}

json decision_json(const AuditDecision& d) {
  json j{{"allowed", d.allowed}, {"by", d.by}};
  if (!d.reason.empty()) j["reason"] = stored_text(d.reason);
  if (!d.answers.empty()) {
    j["answers"] = json::array();
    for (const auto& a : d.answers) j["answers"].push_back(answer_json(a));
  }
  return j;
}

// The argv as stored: the list when short, else the shell line by its hash and start.
json stored_argv(const std::vector<std::string>& argv) {
  size_t total = 0;
  for (const auto& a : argv) total += a.size() + 1;
  if (total <= kAuditTextLimit) return argv;
  return stored_text(shell_join(argv));
}

}  // namespace

json command_start_event(const AuditCommon& c, const CommandStart& s,
                         const AuditSecrets& secrets) {
  json j = base(c, "command_start");
  j["command"] = s.command;
  // Redacted before the hash of a long text is taken: not even a hash of a value is kept.
  if (s.script) {
    j["script"] = stored_text(redact(*s.script, secrets));
  } else {
    std::vector<std::string> argv;
    for (const auto& a : s.argv) argv.push_back(redact(a, secrets));
    j["argv"] = stored_argv(argv);
  }
  j["cwd"] = s.cwd;
  j["mode"] = s.mode;
  j["backend"] = s.backend;
  j["runner"] = s.runner;
  if (s.network) j["network"] = true;
  if (s.outside_sandbox) j["outside_sandbox"] = true;
  j["decision"] = decision_json(s.decision);
  redact_all(j, secrets);
  return j;
}

json command_end_event(const AuditCommon& c, const CommandEnd& e, const AuditSecrets& secrets) {
  json j = base(c, "command_end");
  j["command"] = e.command;
  j["ran"] = e.ran;
  j["exit"] = e.exit_code;
  j["duration_ms"] = std::round(e.duration_ms * 10) / 10;
  if (e.timed_out) j["timed_out"] = true;
  if (e.canceled) j["canceled"] = true;
  if (e.withheld) j["withheld"] = true;
  if (!e.refusal.empty()) j["refusal"] = stored_text(e.refusal);
  if (e.quarantined) j["quarantined"] = e.quarantined;
  if (!e.connections.empty()) {
    j["connections"] = json::array();
    for (const auto& [host, allowed] : e.connections)
      j["connections"].push_back({{"host", host}, {"allowed", allowed}});
  }
  redact_all(j, secrets);
  return j;
}

json way_out_event(const AuditCommon& c, const std::string& command, const std::string& kind,
                   const std::string& by) {
  json j = base(c, "way_out");
  j["command"] = command;
  j["way"] = kind;
  j["by"] = by;
  return j;
}

json quarantine_event(const AuditCommon& c, const std::string& command, const std::string& from,
                      const std::string& to, const AuditSecrets& secrets) {
  json j = base(c, "quarantine");
  if (!command.empty()) j["command"] = command;
  j["from"] = stored_text(from);
  j["to"] = stored_text(to);
  redact_all(j, secrets);
  return j;
}

json resume_event(const AuditCommon& c, const std::string& finding, const AuditSecrets& secrets) {
  json j = base(c, "resume");
  j["finding"] = stored_text(finding);
  redact_all(j, secrets);
  return j;
}

json file_tool_event(const AuditCommon& c, const std::string& path, const AuditAnswer& answer,
                     const AuditSecrets& secrets) {
  const char* kind = answer.kind == "credential_read"   ? "file_read_credential"
                     : answer.kind == "protected_write" ? "file_write_protected"
                     : answer.kind == "write_outside"   ? "file_write_outside"
                                                        : "file_tool";
  json j = base(c, kind);
  j["path"] = stored_text(path);
  j["allowed"] = answer.allowed;
  j["by"] = answer.by;
  if (answer.risk) j["risk"] = *answer.risk;
  redact_all(j, secrets);
  return j;
}

json host_event(const AuditCommon& c, const std::string& command, const std::string& host_port,
                const AuditAnswer& answer) {
  json j = base(c, "network_host");
  j["command"] = command;
  j["host"] = host_port;
  j["allowed"] = answer.allowed;
  j["by"] = answer.by;
  if (answer.risk) j["risk"] = *answer.risk;
  if (answer.breaker) j["breaker"] = true;
  return j;
}

namespace {

// Days since 1970-01-01 of a civil date, and back (H. Hinnant's algorithms).
int64_t days_from_civil(int64_t y, unsigned m, unsigned d) {
  y -= m <= 2;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const unsigned yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<int64_t>(doe) - 719468;
}

void civil_from_days(int64_t z, int64_t& y, unsigned& m, unsigned& d) {
  z += 719468;
  const int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const unsigned doe = static_cast<unsigned>(z - era * 146097);
  const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const unsigned mp = (5 * doy + 2) / 153;
  d = doy - (153 * mp + 2) / 5 + 1;
  m = mp < 10 ? mp + 3 : mp - 9;
  y = static_cast<int64_t>(yoe) + era * 400 + (m <= 2);
}

int64_t floor_div(int64_t a, int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0))); }

}  // namespace

std::string iso_time(int64_t unix_ms) {
  const int64_t days = floor_div(unix_ms, 86400000);
  const int64_t rest = unix_ms - days * 86400000;
  int64_t y;
  unsigned m, d;
  civil_from_days(days, y, m, d);
  return fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:03}Z", y, m, d, rest / 3600000,
                     rest / 60000 % 60, rest / 1000 % 60, rest % 1000);
}

std::optional<int64_t> parse_iso_time(const std::string& text) {
  int y = 0, mo = 0, d = 0, h = 0, mi = 0, s = 0, ms = 0, n = 0;
  const int got = std::sscanf(text.c_str(), "%4d-%2d-%2d%n", &y, &mo, &d, &n);
  if (got != 3 || mo < 1 || mo > 12 || d < 1 || d > 31) return std::nullopt;
  std::string rest = text.substr(static_cast<size_t>(n));
  if (!rest.empty()) {
    if (rest[0] != 'T' && rest[0] != ' ') return std::nullopt;
    int k = 0;
    if (std::sscanf(rest.c_str() + 1, "%2d:%2d%n", &h, &mi, &k) != 2) return std::nullopt;
    rest = rest.substr(1 + static_cast<size_t>(k));
    if (!rest.empty() && rest[0] == ':') {
      if (std::sscanf(rest.c_str() + 1, "%2d%n", &s, &k) != 1) return std::nullopt;
      rest = rest.substr(1 + static_cast<size_t>(k));
    }
    if (!rest.empty() && rest[0] == '.') {
      if (std::sscanf(rest.c_str() + 1, "%3d%n", &ms, &k) != 1) return std::nullopt;
      rest = rest.substr(1 + static_cast<size_t>(k));
    }
    if (rest == "Z") rest.clear();
    if (!rest.empty() || h > 23 || mi > 59 || s > 60) return std::nullopt;
  }
  const int64_t days = days_from_civil(y, static_cast<unsigned>(mo), static_cast<unsigned>(d));
  return ((days * 24 + h) * 60 + mi) * 60000 + s * 1000 + ms;
}

namespace {

std::string text_of(const json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_object() && v.contains("start"))
    return v["start"].get<std::string>() + fmt::format("… ({} bytes, sha256 {})",
                                                        v.value("bytes", 0),
                                                        v.value("sha256", std::string()));
  return v.dump();
}

std::string command_words(const json& e) {
  if (e.contains("script")) return "-c " + text_of(e["script"]);
  if (e.contains("argv") && e["argv"].is_array())
    return shell_join(e["argv"].get<std::vector<std::string>>());
  if (e.contains("argv")) return text_of(e["argv"]);
  return "";
}

std::string decision_words(const json& d) {
  std::string s = d.value("allowed", false) ? "allowed" : "refused";
  s += " by " + d.value("by", std::string("?"));
  if (d.contains("answers"))
    for (const auto& a : d["answers"])
      if (a.contains("risk")) s += fmt::format(" (risk {})", a["risk"].get<double>());
  if (d.contains("reason")) s += ": " + text_of(d["reason"]);
  return s;
}

std::string details(const json& e, const std::string& kind) {
  if (kind == "command_start")
    return fmt::format("#{} {} [{}, {}, {}] in {}: {}", e.value("command", std::string()), command_words(e),
                       e.value("runner", ""), e.value("backend", ""), e.value("mode", ""),
                       e.value("cwd", ""), decision_words(e.value("decision", json::object())));
  if (kind == "command_end") {
    std::string s = fmt::format("#{} exit {} ({} ms){}", e.value("command", std::string()),
                                e.value("exit", 0),
                                e.value("duration_ms", 0.0), e.value("ran", false) ? "" : ", not run");
    if (e.contains("refusal")) s += ": " + text_of(e["refusal"]);
    if (e.contains("connections"))
      for (const auto& c : e["connections"])
        s += fmt::format("; {} {}", c.value("allowed", false) ? "reached" : "refused",
                         c.value("host", std::string()));
    return s;
  }
  if (kind == "network_host")
    return fmt::format("#{} {} {} by {}", e.value("command", std::string()),
                       e.value("host", std::string()),
                       e.value("allowed", false) ? "allowed" : "refused",
                       e.value("by", std::string()));
  if (kind == "way_out")
    return fmt::format("#{} {} allowed by {}", e.value("command", std::string()),
                       e.value("way", ""),
                       e.value("by", ""));
  if (kind == "quarantine")
    return fmt::format("#{} {} moved to {}", e.value("command", std::string()),
                       text_of(e.value("from", json(""))), text_of(e.value("to", json(""))));
  if (kind == "resume") return text_of(e.value("finding", json("")));
  if (e.contains("path"))
    return fmt::format("{} {} by {}", text_of(e["path"]),
                       e.value("allowed", false) ? "allowed" : "refused",
                       e.value("by", std::string()));
  json rest = e;
  for (const char* k : {"event", "time", "session", "seq", "prev"}) rest.erase(k);
  return rest.dump();
}

}  // namespace

std::string readable_event(const json& event) {
  const std::string kind = event.value("event", std::string("?"));
  return fmt::format("{}  {:<14} {}", event.value("time", std::string()), kind,
                     details(event, kind));
}

}  // namespace cordon
