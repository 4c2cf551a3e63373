#include "session/session_credentials.h"

#include <fmt/format.h>
#include <unistd.h>

#include "core/paths.h"
#include "core/trace.h"
#include "net/cert_authority.h"
#include "sys/fs_util.h"

namespace cordon {

namespace {

// The real value: the variable's, or the file's (one trailing newline dropped).
std::optional<std::string> read_value(const CredentialConfig& c, const EnvMap& env,
                                      const std::string& home, std::string& problem) {
  if (!c.env.empty()) {
    auto v = env.get(c.env);
    if (!v || v->empty()) problem = fmt::format("{} is not set", c.env);
    return v && !v->empty() ? v : std::nullopt;
  }
  const std::string path = expand_home(c.file, home);
  auto text = read_file(path, 64 * 1024);
  if (!text.ok()) {
    problem = fmt::format("{} could not be read", c.file);
    return std::nullopt;
  }
  std::string v = std::move(text).value();
  if (!v.empty() && v.back() == '\n') v.pop_back();
  if (!v.empty() && v.back() == '\r') v.pop_back();
  if (v.empty() || v.find('\n') != std::string::npos) {
    problem = fmt::format("{} does not hold one line (a token)", c.file);
    return std::nullopt;
  }
  return v;
}

std::string hosts_text(const CredentialConfig& c) { return fmt::format("{}", fmt::join(c.hosts, ", ")); }

}  // namespace

SessionCredentials make_session_credentials(const Policy& policy, const EnvMap& env,
                                            const std::string& home, const std::string& data,
                                            const std::string& session_id) {
  SessionCredentials out;
  if (policy.credentials.empty()) return out;
  const std::string dir = path_join(data, "credentials");
  auto ca = CertAuthority::open(dir);
  trace("credentials: ca opened");
  std::string bundle;
  if (ca.ok()) {
    std::vector<std::string> bundles = {env.value("SSL_CERT_FILE")};  // the user's own first
    for (const auto& s : CertAuthority::system_bundles()) bundles.push_back(s);
    auto b = ca.value()->write_bundle(dir, bundles);
    if (b.ok()) bundle = b.value();
  }
  if (!ca.ok() || bundle.empty()) {
    out.notices.push_back(fmt::format(
        "[credentials] could not be set up ({}): their variables are stripped and their files "
        "hidden, as without [credentials].",
        ca.ok() ? "the CA bundle could not be written in " + dir : ca.error().message));
    return out;
  }
  trace("credentials: bundle written");
  auto proxying = std::make_shared<CredentialProxying>();
  proxying->ca = ca.value();
  proxying->test_upstream_ca = env.value(kTestUpstreamCaVariable);
  out.sandbox.ca_bundle = bundle;
  // One folder per process of the session (a named session's commands may come from several).
  const std::string placeholders =
      path_join(dir, fmt::format("session-{}-{}", session_id, getpid()));
  std::vector<std::string> names;
  std::vector<std::optional<std::string>> secrets;
  for (const auto& c : policy.credentials) {
    std::string problem;
    std::optional<std::string> real = read_value(c, env, home, problem);
    std::string placeholder = credential_placeholder(real.value_or(""),
                                                     random_hex16() + random_hex16().substr(0, 8));
    CredentialSandbox::Item item{c.name, c.env,
                                 c.file.empty() ? "" : normalize_path(expand_home(c.file, home)),
                                 placeholder, ""};
    if (real && !c.file.empty()) {
      item.placeholder_file = path_join(placeholders, c.name);
      Status st = make_dirs(placeholders, 0700);
      if (st.ok()) st = write_file_atomic(item.placeholder_file, placeholder + "\n", false, 0600);
      if (!st.ok()) {
        problem = "its placeholder file could not be written: " + st.error().message;
        real.reset();
      }
    }
    if (!real) {
      out.notices.push_back(fmt::format("[credentials.{}]: {}; commands do not get it.", c.name,
                                        problem));
      names.push_back(placeholder);
      secrets.push_back(std::nullopt);
      continue;
    }
    out.notices.push_back(fmt::format(
        "{} holds a placeholder ([credentials.{}]): the allowlist proxy puts the real value on "
        "https requests to {} only.",
        c.env.empty() ? c.file : c.env, c.name, hosts_text(c)));
    out.sandbox.items.push_back(std::move(item));
    names.push_back(placeholder);
    secrets.push_back(std::move(real));
  }
  auto bindings = credential_bindings(policy.credentials, names, secrets);
  if (bindings.ok()) proxying->bindings = std::move(bindings).value();
  if (!proxying->bindings.empty()) out.proxying = std::move(proxying);
  return out;
}

void remove_session_credentials(const SessionCredentials& c) {
  std::string dir;
  for (const auto& item : c.sandbox.items)
    if (!item.placeholder_file.empty()) {
      unlink(item.placeholder_file.c_str());
      dir = path_parent(item.placeholder_file);
    }
  if (!dir.empty()) rmdir(dir.c_str());
}

}  // namespace cordon
