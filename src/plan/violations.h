// AUD-2: the violations of a result, from what cordon knows for certain (the allowlist proxy's
// refusals, what aftercare moved aside) and from the output's wording (blocked_note.h), merged:
// a certain one wins over the wording's guess of the same kind. Pure.
//
// Example: a command whose `curl evil.invalid` the proxy refused and that planted .envrc:
//   all_violations(plan, out) ->
//     {kind "network", host "evil.invalid:443", rule "not in [network] allow", fix "...", source
//      "cordon"}, {kind "plant", path "/p/.envrc", rule "...", fix "... moved to ...", "cordon"}
#pragma once

#include <vector>

#include "cordon/exec_result.h"
#include "plan/plan.h"

namespace cordon {

// Hosts the proxy refused (NET-9's connections that were not allowed).
std::vector<api::Violation> proxy_violations(const std::vector<api::Connection>& connections,
                                             const std::string& config_file);

// Files aftercare or the leftover sweep moved aside (PROT-7).
std::vector<api::Violation> plant_violations(const std::vector<api::Moved>& moved);

// Every violation of a command that ran: the certain ones, then the output's where they add
// (`read_output` false for a command ended by its timeout or canceled: its last words are not
// a refusal's).
std::vector<api::Violation> all_violations(const Plan& plan, const api::ExecResult& out,
                                           bool read_output = true);

}  // namespace cordon
