// What asks for approval (APR-1) and how it is named on the wire (SRV-1 `approval/ask`).
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

namespace cordon {

// The things that ask (APR-1). The strings are SRV-1's `kind` values.
enum class AskKind {
  kNetwork,         // "network": way out 1, `network: true` (NET-3)
  kOutsideSandbox,  // "outside_sandbox": way out 2 (NET-4); never granted for the session
  kCredentialRead,  // "credential_read": reading a credential file (FILE-4)
  kWriteOutside,    // "write_outside": a file-tool write outside the writable roots (FILE-5)
  kProtectedWrite,  // "protected_write": a file-tool write to a protected path (FILE-6)
  kCommand,         // "command": the command policy says it needs approval (CMD)
};

// "network", "outside_sandbox", ...
const char* to_string(AskKind kind);
// The inverse of to_string; nullopt for anything else (case-sensitive).
std::optional<AskKind> parse_ask_kind(std::string_view text);

// One request for approval.
//   ApprovalRequest{AskKind::kNetwork, "npm install", std::nullopt, "fetch dependencies"}
struct ApprovalRequest {
  AskKind kind = AskKind::kCommand;
  std::optional<std::string> command;  // the command line, for network/outside_sandbox/command
  std::optional<std::string> path;  // the file, for credential_read/write_outside/protected_write
  std::string reason;               // the caller's words, shown to the person (never the judge)
};

// What is being asked for, as a phrase for messages:
//   {kNetwork, "npm install"}        -> "network access for `npm install`"
//   {kCredentialRead, path ".env"}   -> "reading the credential file .env"
std::string describe(const ApprovalRequest& request);

// SRV-1 `approval/ask` params: {"kind", "command"?, "path"?, "reason"}. Absent fields are left
// out, never null.
nlohmann::json to_ask_params(const ApprovalRequest& request);

}  // namespace cordon
