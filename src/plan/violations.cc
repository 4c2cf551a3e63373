#include "plan/violations.h"

#include <fmt/format.h>

#include <algorithm>

#include "plan/blocked_note.h"
#include "plan/credential_rules.h"

namespace cordon {

std::vector<api::Violation> proxy_violations(const std::vector<api::Connection>& connections,
                                             const std::string& config_file) {
  std::vector<api::Violation> out;
  for (const auto& c : connections) {
    // An allowed host that did not answer is no refusal of cordon's.
    if (c.allowed || c.rule.rfind("unreachable", 0) == 0) continue;
    const std::string host = c.host.substr(0, c.host.rfind(':'));
    // NET-6, NET-12: an entry without a port covers 80 and 443 only; any other port is named.
    const std::string port = c.host.substr(c.host.rfind(':') + 1);
    const std::string entry = port == "80" || port == "443" ? host : c.host;
    if (auto name = placeholder_rule_credential(c.rule)) {  // AUD-3
      out.push_back({"network", "", c.host, c.rule,
                     fmt::format("send the credential only to the hosts of [credentials.{}] in "
                                 "{}, over https; if {} should get it, ask the user to add it "
                                 "there",
                                 *name, config_file.empty() ? "your config file" : config_file,
                                 host),
                     "cordon"});
      continue;
    }
    out.push_back(
        {"network", "", c.host, c.rule,
         fmt::format("if the command needs {}, add it to allow under [network] in {}, or run it "
                     "again with --network (network: true), which needs approval",
                     entry, config_file.empty() ? "your config file" : config_file),
         "cordon"});
  }
  return out;
}

std::vector<api::Violation> plant_violations(const std::vector<api::Moved>& moved) {
  std::vector<api::Violation> out;
  for (const auto& m : moved)
    out.push_back({"plant", m.from, "",
                   "files that make code run later (git hooks and config, .envrc, editor tasks, "
                   "other protected files) may not be made or changed by a sandboxed command",
                   fmt::format("it was moved aside to {}; if you meant it, look at it and move it "
                               "back yourself (`cordon review` lists what commands changed)",
                               m.to),
                   "cordon"});
  return out;
}

std::vector<api::Violation> all_violations(const Plan& plan, const api::ExecResult& out,
                                           bool read_output) {
  std::vector<api::Violation> v = proxy_violations(out.connections, plan.config_file);
  auto p = plant_violations(out.quarantined);
  v.insert(v.end(), p.begin(), p.end());
  if (!read_output) return v;
  for (auto& o : output_violations(plan, out.exit_code, out.stderr_text + "\n" + out.stdout_text)) {
    // The proxy named the refused host: the wording's hostless guess adds nothing.
    const bool known = std::any_of(v.begin(), v.end(), [&](const api::Violation& k) {
      return k.kind == o.kind && o.kind == "network";
    });
    if (!known) v.push_back(std::move(o));
  }
  return v;
}

}  // namespace cordon
