// AUD-2: the violation of a refusal before anything ran, made from the same words as the
// refusal's message: the command policy's denial (CMD-4) and a question the approver refused
// (a way out, NET-3/NET-4; a file tool's credential read or write, FILE-4..6). Pure.
//
//   answer_violation({.kind = kWriteOutside, .path = "/etc/x"}, away_decision) ->
//     {kind "write", path "/etc/x", rule "a file-tool write outside the project and the
//      writable folders needs approval: the user is away and cannot approve it",
//      fix "keep going with what needs no approval, ...", source "cordon"}
#pragma once

#include <string>

#include "approval/approver.h"
#include "cordon/violation.h"

namespace cordon {

// CMD-4: the command policy denies the command; `reason` is the classifier's sentence.
api::Violation policy_violation(const std::string& reason);

// A question the approver refused (d.allowed false): its kind, path or host, rule and fix.
api::Violation answer_violation(const ApprovalRequest& r, const Decision& d);

// A message's sentence as a violation's fix: "Carry on without it." -> "carry on without it".
std::string as_fix(const std::string& sentence);
// And back: "carry on without it" -> "Carry on without it."
std::string as_sentence(const std::string& fix);

}  // namespace cordon
