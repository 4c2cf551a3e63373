#include "approval/request.h"

#include <fmt/format.h>

namespace cordon {

namespace {

struct KindName {
  AskKind kind;
  const char* name;
};
constexpr KindName kKinds[] = {
    {AskKind::kNetwork, "network"},
    {AskKind::kOutsideSandbox, "outside_sandbox"},
    {AskKind::kCredentialRead, "credential_read"},
    {AskKind::kWriteOutside, "write_outside"},
    {AskKind::kProtectedWrite, "protected_write"},
    {AskKind::kCommand, "command"},
};

std::string quoted_command(const ApprovalRequest& r) {
  return r.command ? fmt::format(" `{}`", *r.command) : std::string();
}

std::string path_or(const ApprovalRequest& r, const char* fallback) {
  return r.path ? *r.path : std::string(fallback);
}

}  // namespace

const char* to_string(AskKind kind) {
  for (const auto& k : kKinds)
    if (k.kind == kind) return k.name;
  return "?";
}

std::optional<AskKind> parse_ask_kind(std::string_view text) {
  for (const auto& k : kKinds)
    if (text == k.name) return k.kind;
  return std::nullopt;
}

std::string describe(const ApprovalRequest& r) {
  switch (r.kind) {
    case AskKind::kNetwork:
      return r.command ? fmt::format("network access for `{}`", *r.command) : "network access";
    case AskKind::kOutsideSandbox:
      return fmt::format("running{} outside the sandbox",
                         r.command ? quoted_command(r) : std::string(" a command"));
    case AskKind::kCredentialRead:
      return fmt::format("reading the credential file {}", path_or(r, "(unnamed)"));
    case AskKind::kWriteOutside:
      return fmt::format("writing {} outside the project and the writable roots",
                         path_or(r, "a file"));
    case AskKind::kProtectedWrite:
      return fmt::format("writing the protected path {}", path_or(r, "(unnamed)"));
    case AskKind::kCommand:
      return r.command ? fmt::format("running `{}`", *r.command) : "running a command";
  }
  return "an unknown request";
}

nlohmann::json to_ask_params(const ApprovalRequest& r) {
  nlohmann::json j = nlohmann::json::object();
  j["kind"] = to_string(r.kind);
  if (r.command) j["command"] = *r.command;
  if (r.path) j["path"] = *r.path;
  j["reason"] = r.reason;
  return j;
}

}  // namespace cordon
