#include "render/backend_choice.h"

#include <fmt/format.h>

namespace cordon {

namespace {

// LL-1: the config's choice, where CORDON_BACKEND names none.
Status apply_setting(BackendSetting setting, bool on_macos, BackendChoice& c) {
  if (setting != BackendSetting::kLandlock) return ok_status();
  if (on_macos)
    return make_error(ErrorKind::kConfig,
                      "[sandbox] backend = \"landlock\": Landlock needs Linux; on macOS the "
                      "sandbox is Seatbelt. Fix: remove the key or set it to \"auto\".");
  c.backend = Backend::kLandlock;
  c.configured = true;
  return ok_status();
}

}  // namespace

Result<BackendChoice> choose_backend(const EnvMap& env, bool on_macos, BackendSetting setting) {
  BackendChoice c;
  c.backend = on_macos ? Backend::kSeatbelt : Backend::kBwrap;
  const std::string named = env.get("CORDON_BACKEND").value_or("");
  if (named.empty())
    if (auto st = apply_setting(setting, on_macos, c); !st.ok()) return st.error();
  if (named == "seatbelt") {
    c.backend = Backend::kSeatbelt;
    c.forced = true;
  } else if (named == "bwrap" && !on_macos) {
    c.forced = true;
  } else if (named == "bwrap") {
    return make_error(ErrorKind::kConfig,
                      "CORDON_BACKEND=bwrap: bubblewrap needs Linux; on macOS the sandbox is "
                      "Seatbelt. Fix: unset CORDON_BACKEND.");
  } else if (!named.empty()) {
    return make_error(ErrorKind::kConfig,
                      fmt::format("CORDON_BACKEND={} is not a sandbox backend. Fix: "
                                  "set it to seatbelt or bwrap, or unset it.",
                                  named));
  }
  const std::string stand_in = env.get("CORDON_SANDBOX_EXEC").value_or("");
  if (c.backend == Backend::kSeatbelt) {
    c.sandbox_exec = kSandboxExec;
    // Only with the backend forced: a stray variable never replaces the real sandbox-exec.
    if (!stand_in.empty() && c.forced) {
      if (stand_in[0] != '/')
        return make_error(ErrorKind::kConfig,
                          fmt::format("CORDON_SANDBOX_EXEC={} is not an absolute path. Fix: name "
                                      "the stand-in by its full path.",
                                      stand_in));
      c.sandbox_exec = stand_in;
      c.stand_in = true;
    }
  }
  c.stand_in_ignored = !stand_in.empty() && !c.stand_in;
  c.may_fall_back = !on_macos && named.empty() && setting == BackendSetting::kAuto;
  return c;
}

std::string backend_title(const BackendChoice& c) {
  if (c.backend == Backend::kBwrap) return "bubblewrap (Linux)";
  if (c.backend == Backend::kLandlock && !c.fallback_cause.empty())
    return "Landlock + seccomp (Linux; bubblewrap cannot run here: " + c.fallback_cause + ")";
  if (c.backend == Backend::kLandlock)
    return "Landlock + seccomp (Linux, set by [sandbox] backend = \"landlock\")";
  std::string t = "Seatbelt (sandbox-exec)";
  if (c.forced && !kOnMacos) t += ", forced by CORDON_BACKEND";
  if (c.stand_in) t += ", with a stand-in for tests: " + c.sandbox_exec + " (CORDON_SANDBOX_EXEC)";
  return t;
}

BackendChoice fall_back_to_landlock(BackendChoice c, const std::string& cause) {
  c.backend = Backend::kLandlock;
  c.may_fall_back = false;
  c.fallback_cause = cause;
  return c;
}

const char* backend_name(Backend b) {
  return b == Backend::kSeatbelt ? "seatbelt" : b == Backend::kLandlock ? "landlock" : "bubblewrap";
}

}  // namespace cordon
