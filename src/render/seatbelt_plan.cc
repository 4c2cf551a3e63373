#include "render/seatbelt_plan.h"

#include <fmt/format.h>

#include <algorithm>
#include <optional>

#include "core/paths.h"
#include "core/strings.h"
#include "plan/planner.h"
#include "render/seatbelt_profile.h"

namespace cordon {

namespace {

std::string config_name(const Policy& policy, const Facts& facts) {
  std::string f = policy.source_file.empty() ? facts.folders.config_file : policy.source_file;
  return tilde_path(f, facts.home);
}

// Seatbelt's rules are about paths: an untracked protected file with a second name (a hard
// link made outside the sandbox) could be changed through that name, which no rule covers.
// (Under bwrap the same gap exists and is not refused; SPEC leaves it open.)
std::optional<Refusal> hard_link_refusal(const Facts& f) {
  for (const auto& p : f.protected_paths) {
    if (p.info.kind != Kind::kFile || p.info.nlink < 2) continue;
    if (std::find(p.tracked.begin(), p.tracked.end(), p.rel) != p.tracked.end()) continue;
    std::string q = shell_quote(p.rel);
    return Refusal{ErrorKind::kRefused,
                   fmt::format("{} has another hard link, so a command could change it through "
                               "that name. Fix on the host: remove the other link, or copy the "
                               "file over itself (`cp -p {} {}.copy && mv {}.copy {}`), then run "
                               "the command again.",
                               p.rel, q, q, q, q)};
  }
  return std::nullopt;
}

}  // namespace

std::vector<std::string> seatbelt_command_line(const SeatbeltPlan& sp,
                                               const SeatbeltOptions& options) {
  std::vector<std::string> argv = {options.sandbox_exec, "-p", sp.profile, "--"};
  argv.insert(argv.end(), sp.plan.argv.begin(), sp.plan.argv.end());
  return argv;
}

SeatbeltPlan make_seatbelt_plan(const Policy& policy, const Facts& facts, const Request& req,
                                const SeatbeltOptions& opt) {
  Facts f = facts;
  f.machine.arg_max = opt.arg_max;
  PlanOptions po;
  po.backend = Backend::kSeatbelt;
  po.shell = opt.shell;
  po.mount_budget = SIZE_MAX;  // BUD-2 is bwrap's; MAC-2's cap is on the profile below
  SeatbeltPlan sp;
  sp.plan = make_plan(policy, f, req, po);
  if (sp.plan.refused() || sp.plan.runner != Runner::kSandbox) return sp;
  sp.plan.seccomp.clear();  // Seatbelt has no seccomp; its profile says what may be done
  if (auto r = hard_link_refusal(f)) {
    sp.plan.refusal = r;
    return sp;
  }

  SeatbeltProfile prof = render_seatbelt_profile(sp.plan, f, opt.terminals);
  if (prof.filters.total() > opt.max_path_filters) {
    // MAC-2: the safe, coarser choice first, as BUD-2 does past the mount budget.
    po.coarse = true;
    Plan coarse = make_plan(policy, f, req, po);
    if (coarse.refused()) {
      sp.plan = std::move(coarse);
      return sp;
    }
    coarse.seccomp.clear();
    SeatbeltProfile cp = render_seatbelt_profile(coarse, f, opt.terminals);
    if (cp.filters.total() < prof.filters.total()) {
      coarse.notices.push_back(fmt::format(
          "the Seatbelt profile needed more than {} path filters, so protected folders judged "
          "file by file are read-only whole for this command; edit their tracked files "  // MAC-2
          "outside the sandbox.",
          opt.max_path_filters));
      sp.plan = std::move(coarse);
      prof = std::move(cp);
    }
  }
  sp.filters = prof.filters;
  sp.profile = std::move(prof.text);
  if (sp.filters.total() > opt.max_path_filters) {
    BudgetList most = sp.filters.largest();
    sp.plan.refusal = Refusal{
        ErrorKind::kRefused,
        fmt::format("the sandbox for this command needs {} path filters, more than Seatbelt "
                    "compiles in a usable time ({}): most are {} ({}). Fix on the host: {}, "
                    "then run the command again.",
                    sp.filters.total(), opt.max_path_filters, budget_list_name(most),
                    sp.filters.at(most), budget_list_fix(most, config_name(policy, facts)))};
    return sp;
  }

  // macOS has no hidden-path mounts: what the profile hides is listed for `cordon policy`.
  for (const auto& rel : macos_hidden_home_entries())
    sp.plan.hidden.push_back(HiddenDecision{tilde_path(path_join(f.home, rel), f.home), "~/" + rel,
                                            "macOS: credentials and private data", true, ""});

  // BUD-1: the profile travels as an argument of sandbox-exec.
  ArgumentBudget b;
  b.limit = opt.arg_max;
  b.prefix = {opt.sandbox_exec, "-p", sp.profile, "--"};
  b.prefix_name = "the sandbox profile";
  b.prefix_fix = fmt::format(
      "shorten the [sandbox] hide and protect lists in {}: every path "
      "they name is written into the profile.",
      config_name(policy, facts));
  b.temp_folder = "$TMPDIR";
  if (auto r = check_argument_budget(sp.plan.argv, sp.plan.env, b)) sp.plan.refusal = r;
  return sp;
}

}  // namespace cordon
