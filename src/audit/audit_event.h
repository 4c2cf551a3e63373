// AUD-1: the audit log's events, as JSON objects (the chain adds "seq" and "prev",
// audit_chain.h). Every event has "event" (its kind), "time" (UTC, ISO 8601 with ms) and
// "session"; a command's events have "command" (its number in this process's session, so that a
// start and its end pair up). Pure.
//
//   AuditSecrets s{{"GITHUB_TOKEN", "ghp_x..."}};
//   CommandStart st{...};
//   nlohmann::json e = command_start_event(st, s);   // no stripped value anywhere in it
//
// Kinds: command_start, command_end (with the proxy's connections), way_out, network_host,
// quarantine, resume, file_read_credential, file_write_outside, file_write_protected,
// job_input, job_signal, credential_used (AUD-3).
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace cordon {

// Texts past this many bytes are stored by their SHA-256 and this many first bytes.
inline constexpr size_t kAuditTextLimit = 4096;

// The stripped variables the session knows (ENV-1): name and value. Their values never appear
// in an event: each is replaced by "[value of $NAME]" wherever it occurs in any string.
struct AuditSecrets {
  std::vector<std::pair<std::string, std::string>> vars;
};
// Values this short are too common to replace (they would mangle the log) and too short to be a
// credential.
inline constexpr size_t kShortestSecret = 6;

std::string redact(std::string text, const AuditSecrets& secrets);
// Every string in `j` (keys stay), redacted.
void redact_all(nlohmann::json& j, const AuditSecrets& secrets);
// `text` as stored: itself when short, else {"sha256", "bytes", "start"} (its first 4 KiB).
nlohmann::json stored_text(const std::string& text);

// Who decided one question before a command (APR-1): the approver's basis ("user", "grant",
// "approve-all", "judge", "away", "timeout", ...), and the judge's risk when it decided.
struct AuditAnswer {
  std::string kind;  // what was asked: "network", "outside_sandbox", "command"
  bool allowed = false;
  std::string by;
  std::optional<double> risk;
  bool breaker = false;  // this refusal tripped the breaker (APR-6)
};

// A command's decision: allowed or not, and by whom. `by` is the last answer's basis when
// questions were asked; else "sandbox" (it runs sandboxed, nothing to ask), "read-only" (the
// command policy found it read-only), "mode-off", "command-line" (the person typed the way out),
// "policy" (refused by the command policy or the plan), "hold" (the session is held).
struct AuditDecision {
  bool allowed = true;
  std::string by;
  std::string reason;  // a refusal's message
  std::vector<AuditAnswer> answers;
};

struct AuditCommon {
  std::string session;
  std::string time;  // iso_time() (audit/audit_time.h)
};

// A command's id in the log: "<pid>-<n>" (the n-th command of that cordon process), so that a
// start and its end pair up when several processes write one session's log.
struct CommandStart {
  std::string command;
  std::string job;  // a background job's id (its start and end carry it); "" for exec
  std::vector<std::string> argv;
  std::optional<std::string> script;
  std::string cwd;
  std::string mode;     // on, off, external
  std::string backend;  // bwrap, landlock, seatbelt, none
  std::string runner;   // sandbox, unconfined
  bool network = false;
  bool outside_sandbox = false;
  AuditDecision decision;
};

struct CommandEnd {
  std::string command;
  std::string job;  // as CommandStart's
  bool ran = false;
  int exit_code = 0;
  double duration_ms = 0;
  bool timed_out = false;
  bool canceled = false;
  bool withheld = false;
  std::string refusal;  // why it did not run, or was withheld
  size_t quarantined = 0;
  // NET-9: the proxy's connection summary, hosts reached or refused (host, allowed).
  std::vector<std::pair<std::string, bool>> connections;
};

nlohmann::json command_start_event(const AuditCommon& c, const CommandStart& s,
                                   const AuditSecrets& secrets);
nlohmann::json command_end_event(const AuditCommon& c, const CommandEnd& e,
                                 const AuditSecrets& secrets);
// A way out given to a command: "network" or "outside_sandbox", and who allowed it.
nlohmann::json way_out_event(const AuditCommon& c, const std::string& command,
                             const std::string& kind, const std::string& by);
// PROT-7: a path moved aside, from where to where ("" command: at resume).
nlohmann::json quarantine_event(const AuditCommon& c, const std::string& command,
                                const std::string& from, const std::string& to,
                                const AuditSecrets& secrets);
// SES-3: what resuming found (one note).
nlohmann::json resume_event(const AuditCommon& c, const std::string& finding,
                            const AuditSecrets& secrets);
// The file tools' asks, decided: FILE-4's read of a credential file ("file_read_credential"),
// FILE-5's write outside the writable folders ("file_write_outside"), FILE-6's write to a
// protected path ("file_write_protected"); `answer.kind` is the ask's ("credential_read", ...).
nlohmann::json file_tool_event(const AuditCommon& c, const std::string& path,
                               const AuditAnswer& answer, const AuditSecrets& secrets);

// A background job's input written (`cordon job write`, serve's job/write, MCP's bash_write):
// how many bytes and whether the input was closed; never the bytes, nor a hash of them (a
// typed password's hash could be guessed back).
nlohmann::json job_input_event(const AuditCommon& c, const std::string& job, uint64_t bytes,
                               bool eof);
// A signal sent to a background job (`cordon job kill`, serve's job/signal, MCP's kill_bash).
nlohmann::json job_signal_event(const AuditCommon& c, const std::string& job, int signal);

// NET-10: a host no [network] entry names, asked about while the command ran, decided.
nlohmann::json host_event(const AuditCommon& c, const std::string& command,
                          const std::string& host_port, const AuditAnswer& answer);

// AUD-3: a credential the proxy put on the wire for a command: its name (never its value), the
// host:port and how many requests carried it ("credential_used").
nlohmann::json credential_event(const AuditCommon& c, const std::string& command,
                                const std::string& credential, const std::string& host_port,
                                unsigned count);

}  // namespace cordon
