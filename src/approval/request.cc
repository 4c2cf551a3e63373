#include "approval/request.h"

#include <fmt/format.h>

#include <algorithm>

#include "core/sha256.h"

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
    {AskKind::kNetworkHost, "network_host"},
};

std::string quoted_command(const ApprovalRequest& r) {
  return r.command ? fmt::format(" `{}`", *r.command) : std::string();
}

std::string path_or(const ApprovalRequest& r, const char* fallback) {
  return r.path ? *r.path : std::string(fallback);
}

}  // namespace

ApprovalRequest make_request(AskKind kind, std::optional<std::string> command,
                             std::optional<std::string> path, std::string reason) {
  ApprovalRequest r;
  r.kind = kind;
  r.command = std::move(command);
  r.path = std::move(path);
  r.reason = std::move(reason);
  return r;
}

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
    case AskKind::kNetworkHost:
      return fmt::format("reaching {}{}", r.host.value_or("an unlisted host"),
                         r.command ? fmt::format(" from `{}`", *r.command) : std::string());
  }
  return "an unknown request";
}

namespace {

// Bytes that are not UTF-8 (or a sequence cut at the end) become '?', so the start of stdin
// always fits in JSON.
std::string valid_utf8(std::string_view t) {
  std::string out;
  size_t i = 0;
  while (i < t.size()) {
    unsigned char c = static_cast<unsigned char>(t[i]);
    size_t n = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xe ? 3 : (c >> 3) == 0x1e ? 4 : 0;
    bool ok = n > 0 && i + n <= t.size() && !(n == 2 && c < 0xc2);
    for (size_t k = 1; ok && k < n; ++k) ok = (static_cast<unsigned char>(t[i + k]) & 0xc0) == 0x80;
    if (!ok) {
      out += '?';
      ++i;
      continue;
    }
    out.append(t.substr(i, n));
    i += n;
  }
  return out;
}

// Control characters made visible, so the start of stdin cannot redraw a terminal.
std::string visible(std::string_view text) {
  std::string out;
  for (unsigned char c : text) {
    if (c == '\n')
      out += "\\n";
    else if (c == '\t')
      out += "\\t";
    else if (c == '"' || c == '\\')
      out += {'\\', static_cast<char>(c)};
    else if (c < 0x20 || c == 0x7f)
      out += fmt::format("\\x{:02x}", static_cast<unsigned>(c));
    else
      out += static_cast<char>(c);
  }
  return out;
}

}  // namespace

ApprovalRequest::Stdin summarize_stdin(std::string_view data) {
  ApprovalRequest::Stdin s;
  s.size = data.size();
  s.sha256 = sha256_hex(data);
  s.start = valid_utf8(data.substr(0, kStdinShown));
  return s;
}

std::string question_text(const ApprovalRequest& r) {
  std::string t = describe(r);
  if (r.cwd) t += fmt::format(" in {}", visible(*r.cwd));
  if (r.stdin_data) {
    const auto& s = *r.stdin_data;
    t += fmt::format(", with {} bytes on standard input{}: \"{}\"{}", s.size,
                     std::min<uint64_t>(s.size, kStdinShown) < s.size ? " starting" : "",
                     visible(s.start),
                     std::min<uint64_t>(s.size, kStdinShown) < s.size ? "..." : "");
  } else if (r.cwd) {
    t += ", with no standard input";
  }
  return t;
}

std::string grant_key(const ApprovalRequest& r) {
  nlohmann::json j = to_ask_params(r);
  j.erase("reason");
  // NET-10: "for this session" covers the host for every command of the session.
  if (r.kind == AskKind::kNetworkHost) j.erase("command");
  if (j.contains("stdin")) j["stdin"].erase("start");  // the hash stands for all of it
  j["argv_form"] = r.argv_form;
  return j.dump(-1, ' ', true, nlohmann::json::error_handler_t::replace);
}

nlohmann::json to_ask_params(const ApprovalRequest& r) {
  nlohmann::json j = nlohmann::json::object();
  j["kind"] = to_string(r.kind);
  if (r.command) j["command"] = *r.command;
  if (r.path) j["path"] = *r.path;
  if (r.host) j["host"] = *r.host;
  j["reason"] = r.reason;
  if (r.cwd) j["cwd"] = *r.cwd;
  if (r.network) j["network"] = true;
  if (r.outside_sandbox) j["outside_sandbox"] = true;
  if (r.stdin_data)
    j["stdin"] = {{"size", r.stdin_data->size},
                  {"sha256", r.stdin_data->sha256},
                  {"start", r.stdin_data->start},
                  {"truncated", r.stdin_data->size > kStdinShown}};
  return j;
}

}  // namespace cordon
