// What asks for approval (APR-1) and how it is named on the wire (SRV-1 `approval/ask`).
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "cordon/approval.h"

namespace cordon {

// A request from its first four fields, the rest left empty (aggregate initialization would
// name every field).
//   make_request(AskKind::kNetwork, "npm install", std::nullopt, "fetch dependencies")
ApprovalRequest make_request(AskKind kind, std::optional<std::string> command,
                             std::optional<std::string> path, std::string reason);

// "network", "outside_sandbox", ...
const char* to_string(AskKind kind);
// The inverse of to_string; nullopt for anything else (case-sensitive).
std::optional<AskKind> parse_ask_kind(std::string_view text);

// What is being asked for, as a phrase for messages:
//   {kNetwork, "npm install"}        -> "network access for `npm install`"
//   {kCredentialRead, path ".env"}   -> "reading the credential file .env"
std::string describe(const ApprovalRequest& request);

// The standard input of an exec request as a request carries it: size, hash, first bytes.
ApprovalRequest::Stdin summarize_stdin(std::string_view data);

// describe() plus what the person must see to judge an exec: the working folder and the start
// of standard input with its size. For the questions (terminal, MCP elicitation).
//   "running `sh` in /p/src, with 11 bytes on standard input: \"echo hello\\n\""
std::string question_text(const ApprovalRequest& request);

// The key a session grant is kept under: every field of the request but the reason.
std::string grant_key(const ApprovalRequest& request);

// SRV-1 `approval/ask` params: {"kind", "command"?, "path"?, "reason", "cwd"?, "network"?,
// "outside_sandbox"?, "stdin"?: {"size", "sha256", "start", "truncated"}}. Absent fields are
// left out, never null.
nlohmann::json to_ask_params(const ApprovalRequest& request);

}  // namespace cordon
