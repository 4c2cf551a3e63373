// What asks for approval (APR-1) and how it is named on the wire (SRV-1 `approval/ask`).
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "cordon/approval.h"

namespace cordon {

// "network", "outside_sandbox", ...
const char* to_string(AskKind kind);
// The inverse of to_string; nullopt for anything else (case-sensitive).
std::optional<AskKind> parse_ask_kind(std::string_view text);

// What is being asked for, as a phrase for messages:
//   {kNetwork, "npm install"}        -> "network access for `npm install`"
//   {kCredentialRead, path ".env"}   -> "reading the credential file .env"
std::string describe(const ApprovalRequest& request);

// SRV-1 `approval/ask` params: {"kind", "command"?, "path"?, "reason"}. Absent fields are left
// out, never null.
nlohmann::json to_ask_params(const ApprovalRequest& request);

}  // namespace cordon
