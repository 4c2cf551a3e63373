#include "plan/protect_rules.h"

#include <fmt/format.h>

#include "core/paths.h"

namespace cordon {

std::optional<Refusal> protected_refusal(const Facts&) { return std::nullopt; }

void plan_protected(const Policy&, const Facts&, Plan&, bool) {}

void plan_credentials(const Facts& facts, const Request& req, Plan& p) {
  if (!req.network) return;
  if (!facts.credential_scan_refusal.empty()) {
    p.refusal = Refusal{"refused", facts.credential_scan_refusal};
    return;
  }
  for (const auto& c : facts.credential_files) {
    if (c.real.empty()) continue;
    bool dir = c.real_kind == Kind::kDir;
    p.mounts.push_back(MountOp{MountKind::kRoBind, dir ? facts.empty_dir : facts.empty_file,
                               c.real, "credential: hidden from a networked command (NET-3)"});
  }
}

}  // namespace cordon
