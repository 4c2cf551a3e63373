// AUD-2: what the sandbox or the policy refused, in a form the agent can act on: in a command's
// result (cordon/exec_result.h) and in the error of a request refused before anything ran
// (cordon/result.h, cordon/error.h).
#pragma once

#include <string>

namespace cordon::api {

// AUD-2: one thing the sandbox or the policy refused, which the agent can act on.
struct Violation {
  // "write", "read", "network", "socket", "plant", "policy" (the command policy), or
  // "outside_sandbox" (running outside the sandbox was refused)
  std::string kind;
  std::string path;    // write, read, plant: the path concerned ("" when the output named none)
  std::string host;    // network: "host:port" ("" when only the output's wording told)
  std::string rule;    // the rule that refused it, in a person's words
  std::string fix;     // what to do about it
  // "cordon" when cordon knows it for certain (a proxy refusal, a quarantine, a refused way
  // out); "output" when read from the command's own error messages (a refused write).
  std::string source = "cordon";
  bool operator==(const Violation&) const = default;
};

}  // namespace cordon::api
