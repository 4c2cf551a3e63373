#include "audit/audit_event.h"

#include <fmt/format.h>

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

// To a tenth, halves away from zero (as std::round), without the maths library: PERF-1, the
// cordon program loads no libm (0.1 ms at every start).
double tenths(double ms) {
  const double scaled = ms * 10 + (ms < 0 ? -0.5 : 0.5);
  return static_cast<double>(static_cast<long long>(scaled)) / 10;
}

}  // namespace

json command_start_event(const AuditCommon& c, const CommandStart& s, const AuditSecrets& secrets) {
  json j = base(c, "command_start");
  j["command"] = s.command;
  if (!s.job.empty()) j["job"] = s.job;
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
  if (!e.job.empty()) j["job"] = e.job;
  j["ran"] = e.ran;
  j["exit"] = e.exit_code;
  j["duration_ms"] = tenths(e.duration_ms);
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

json job_input_event(const AuditCommon& c, const std::string& job, uint64_t bytes, bool eof) {
  json j = base(c, "job_input");
  j["job"] = job;
  j["bytes"] = bytes;
  if (eof) j["eof"] = true;
  return j;
}

json job_signal_event(const AuditCommon& c, const std::string& job, int signal) {
  json j = base(c, "job_signal");
  j["job"] = job;
  j["signal"] = signal;
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

json credential_event(const AuditCommon& c, const std::string& command,
                      const std::string& credential, const std::string& host_port,
                      unsigned count) {
  json j = base(c, "credential_used");
  j["command"] = command;
  j["credential"] = credential;
  j["host"] = host_port;
  j["requests"] = count;
  return j;
}

}  // namespace cordon
